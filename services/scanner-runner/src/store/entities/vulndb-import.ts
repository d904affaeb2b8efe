import { defineEntity, p, type InferEntity } from "@mikro-orm/postgresql";

/**
 * The vulnerability database's one status row (name "osv"): what the last import attempt did, for a status panel,
 * and the database version the advisories are at (changes with every import that changed something).
 */
export const VulndbImport = defineEntity({
  name: "VulndbImport",
  tableName: "vulndb_imports",
  properties: {
    name: p.string().length(32).primary(),
    databaseVersion: p.string().length(64),
    /** Where the last attempt read from (a path, or a URL's origin and path without credentials). */
    source: p.text(),
    lastAttemptAt: p.datetime(),
    /** imported, unchanged or failed. */
    lastResult: p.string().length(16),
    lastSucceededAt: p.datetime().nullable(),
    durationMs: p.integer(),
    advisoryCount: p.integer(),
    addedCount: p.integer(),
    updatedCount: p.integer(),
    unchangedCount: p.integer(),
    removedCount: p.integer(),
    withdrawnCount: p.integer(),
    skippedCount: p.integer(),
    /** Up to 20 "file: reason" lines of the skipped advisories; the failure's sentence when the attempt failed. */
    skippedReasons: p.json<string[]>(),
    failure: p.text().nullable(),
  },
});

export type VulndbImportRow = InferEntity<typeof VulndbImport>;
