import { defineEntity, p, type InferEntity } from "@mikro-orm/postgresql";

/**
 * One OSV advisory of the local vulnerability database, as imported (docs/vulnerability-database.md). Every runner
 * instance builds its in-memory matcher from these rows; an import rewrites only advisories whose `modified`
 * changed.
 */
export const VulndbAdvisory = defineEntity({
  name: "VulndbAdvisory",
  tableName: "vulndb_advisories",
  properties: {
    id: p.string().length(200).primary(),
    modified: p.datetime(),
    /** The OSV document as read from the source. */
    document: p.json<Record<string, unknown>>(),
    importedAt: p.datetime().defaultRaw("now()"),
  },
});

export type VulndbAdvisoryRow = InferEntity<typeof VulndbAdvisory>;
