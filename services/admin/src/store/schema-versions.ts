// Which migrations each service's schema holds: what a backup's manifest records and a restore compares. The one
// place admin reads another service's schema, and only its migrations table (the backup carries the whole schema
// as pg_dump reads it; no service's rows are read here).
import type { EntityManager } from "@mikro-orm/postgresql";
import { column, rawQuery } from "@sca/db";
import type { SchemaRecord } from "../domain/backup-manifest.ts";

/** Each service's schema as it stands, in the order given; a schema not there (never migrated) has no migrations. */
export async function schemaVersions(em: EntityManager, schemas: Record<string, string>): Promise<SchemaRecord[]> {
  const present = new Set(
    (await rawQuery(em, "select schema_name as name from information_schema.schemata", [], { name: column.text })).map(
      (r) => r.name,
    ),
  );
  const records: SchemaRecord[] = [];
  for (const [service, schema] of Object.entries(schemas)) {
    const migrations = present.has(schema)
      ? (
          await rawQuery(em, `select name from "${schema.replaceAll('"', '""')}".schema_migrations order by id`, [], {
            name: column.text,
          })
        ).map((r) => r.name)
      : [];
    records.push({ service, schema, migrations });
  }
  return records;
}
