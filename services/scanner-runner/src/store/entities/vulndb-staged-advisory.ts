import { defineEntity, p, type InferEntity } from "@mikro-orm/postgresql";

/**
 * The changed advisories of an import in progress, written while the source is read and moved into
 * vulndb_advisories in the import's one transaction (or dropped when the source turns out broken), so an import's
 * memory does not grow with the source.
 */
export const VulndbStagedAdvisory = defineEntity({
  name: "VulndbStagedAdvisory",
  tableName: "vulndb_staged_advisories",
  properties: {
    importId: p.uuid().primary(),
    id: p.string().length(200).primary(),
    modified: p.datetime(),
    document: p.json<Record<string, unknown>>(),
    stagedAt: p.datetime().defaultRaw("now()"),
  },
});

export type VulndbStagedAdvisoryRow = InferEntity<typeof VulndbStagedAdvisory>;
