import type { MikroORM } from "@mikro-orm/postgresql";

/** A table of the service's own schema, quoted for raw SQL (which the ORM does not qualify). */
export function schemaTable(orm: MikroORM, table: string): string {
  const schema = orm.config.get("schema");
  return schema ? `"${schema}"."${table}"` : `"${table}"`;
}
