import { defineEntity, p, type InferEntity } from "@mikro-orm/postgresql";

/**
 * What each enrichment feed (kev, epss, eol, malicious) keeps of its refreshes: the common panel fields as columns,
 * the feed's own counts as JSON (docs/enrichment-feeds.md). `claimed_until` lets one instance at a time refresh.
 */
export const FeedStatus = defineEntity({
  name: "FeedStatus",
  tableName: "feed_status",
  properties: {
    feed: p.string().length(16).primary(),
    lastAttemptAt: p.datetime().strictNullable(),
    /** never, synced, failed or skipped. */
    lastResult: p.string().length(16).default("never"),
    lastSyncedAt: p.datetime().strictNullable(),
    nextRefreshAt: p.datetime().strictNullable(),
    durationMs: p.integer().strictNullable(),
    skippedReason: p.text().default(""),
    feedHost: p.string().length(255).default(""),
    /** YYYY-MM-DD of the data held (the catalog's release, the snapshot's date). */
    snapshotDate: p.string().length(10).strictNullable(),
    /** vendored, override or live. */
    snapshotOrigin: p.string().length(16).strictNullable(),
    counts: p.json<Record<string, number | string[]>>().defaultRaw("'{}'::jsonb"),
    claimedUntil: p.datetime().strictNullable(),
    updatedAt: p.datetime().defaultRaw("now()"),
  },
});
export type FeedStatusRow = InferEntity<typeof FeedStatus>;

/** The known-exploited catalog, one row per CVE. */
export const KevEntryRecord = defineEntity({
  name: "KevEntryRecord",
  tableName: "kev_entries",
  properties: {
    cveId: p.string().length(32).primary(),
    vendorProject: p.text(),
    product: p.text(),
    vulnerabilityName: p.text(),
    dateAdded: p.string().length(10),
    dueDate: p.string().length(10),
    knownRansomwareCampaignUse: p.string().length(16),
  },
});
export type KevEntryRow = InferEntity<typeof KevEntryRecord>;

/** EPSS scores, one row per scored CVE. */
export const EpssScoreRecord = defineEntity({
  name: "EpssScoreRecord",
  tableName: "epss_scores",
  properties: {
    cveId: p.string().length(32).primary(),
    score: p.double(),
    percentile: p.double(),
  },
});
export type EpssScoreRow = InferEntity<typeof EpssScoreRecord>;

/** The end-of-life dataset, one row per endoflife.date product. */
export const EolProductRecord = defineEntity({
  name: "EolProductRecord",
  tableName: "eol_products",
  properties: {
    product: p.string().length(64).primary(),
    releases: p.json<{ releaseCycle: string; eol?: boolean | string; latest?: string }[]>(),
    identifiers: p.json<{ purl?: string }[]>().defaultRaw("'[]'::jsonb"),
  },
});
export type EolProductRow = InferEntity<typeof EolProductRecord>;

/** The malicious-package snapshot: one row per package a MAL- record names. */
export const MaliciousPackageRecord = defineEntity({
  name: "MaliciousPackageRecord",
  tableName: "malicious_packages",
  properties: {
    malId: p.string().length(64).primary(),
    ecosystem: p.string().length(64).primary(),
    name: p.text().primary(),
    /** The name as the ecosystem compares names (PyPI PEP 503, NuGet lower case), the lookup key. */
    normalisedName: p.text(),
    versions: p.json<string[]>().defaultRaw("'[]'::jsonb"),
    ranges: p.json<{ type: string; events: Record<string, string>[] }[]>().defaultRaw("'[]'::jsonb"),
    source: p.text(),
    withdrawn: p.boolean().default(false),
  },
  indexes: [{ name: "malicious_packages_lookup", properties: ["ecosystem", "normalisedName"] }],
});
export type MaliciousPackageRow = InferEntity<typeof MaliciousPackageRecord>;
