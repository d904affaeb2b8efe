import { defineEntity, p, type InferEntity } from "@mikro-orm/postgresql";

/**
 * A package name (OSV ecosystem, name as the matcher normalises it) whose advisories changed in an import and whose
 * held versions still have to be re-matched. Written in the import's transaction; deleted once projects recorded the
 * new verdicts, so a runner that dies mid-way resumes where it stopped.
 */
export const VulndbRematchPackage = defineEntity({
  name: "VulndbRematchPackage",
  tableName: "vulndb_rematch_packages",
  properties: {
    ecosystem: p.string().length(100).primary(),
    name: p.string().length(500).primary(),
    queuedAt: p.datetime().defaultRaw("now()"),
  },
});

export type VulndbRematchPackageRow = InferEntity<typeof VulndbRematchPackage>;

/** An enrichment feed (epss, kev) refreshed since its scores and flags last reached the findings. */
export const VulndbPendingEnrichmentUpdate = defineEntity({
  name: "VulndbPendingEnrichmentUpdate",
  tableName: "vulndb_pending_enrichment_updates",
  properties: {
    feed: p.string().length(32).primary(),
    queuedAt: p.datetime().defaultRaw("now()"),
  },
});

export type VulndbPendingEnrichmentUpdateRow = InferEntity<typeof VulndbPendingEnrichmentUpdate>;
