import { UnderscoreNamingStrategy } from "@mikro-orm/core";

type ConstraintKind = Parameters<UnderscoreNamingStrategy["indexName"]>[2];

/** PostgreSQL's own suffixes for constraints a migration leaves unnamed. */
const POSTGRES_SUFFIX: Partial<Record<ConstraintKind, string>> = { foreign: "fkey", unique: "key", index: "idx" };

/**
 * Constraint names as PostgreSQL gives them when a migration leaves them out (`users_email_key`,
 * `memberships_user_id_fkey`), so entities and hand-written migrations agree without naming every constraint twice.
 */
export class PostgresNamingStrategy extends UnderscoreNamingStrategy {
  override indexName(tableName: string, columns: string[], type: ConstraintKind): string {
    const suffix = POSTGRES_SUFFIX[type];
    if (!suffix) return super.indexName(tableName, columns, type);
    const table = tableName.includes(".") ? tableName.slice(tableName.indexOf(".") + 1) : tableName;
    return [table, ...columns.map((c) => c.replace(/\./g, "_")), suffix].join("_");
  }
}
