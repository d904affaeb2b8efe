// The schema-drift check: the entities are the one description of each table (docs/adr/0005), so after a
// service's migrations have run in a fresh schema, MikroORM's diff between its entities and that schema must be
// empty. A non-empty answer is the SQL that would bring the database to what the entities say.
import { DatabaseSchema, type MikroORM } from "@mikro-orm/postgresql";
import { migrateToHead, openDatabase, type DatabaseOptions } from "@sca/db";
import { uniqueName } from "./names.ts";
import { testServers } from "./servers.ts";

/** Applies `migrations` to a new schema and answers the diff SQL from that schema to `entities` ("" when they agree). */
export async function schemaDrift(
  entities: DatabaseOptions["entities"],
  migrations: DatabaseOptions["migrations"],
): Promise<string> {
  const schema = uniqueName("t_drift");
  const orm = await openDatabase({ url: testServers().databaseUrl, schema, entities, migrations, poolMax: 2 });
  try {
    await migrateToHead(orm);
    const diff = await orm.schema.getUpdateSchemaSQL({
      schema,
      wrap: false,
      safe: false,
      dropTables: true,
      fromSchema: await introspect(orm, schema),
    });
    return diff.trim();
  } finally {
    await orm.em.getConnection().execute(`drop schema if exists "${schema}" cascade`);
    await orm.close();
  }
}

/**
 * The tables of this one schema as the database has them. MikroORM's own table list reads every schema (resolving
 * each name with ::regclass), and fails when another test file drops its schema meanwhile; this asks for ours only,
 * in the same shape. The migrations table is the migrator's, not an entity's.
 */
async function introspect(orm: MikroORM, schema: string): Promise<DatabaseSchema> {
  const platform = orm.em.getPlatform();
  const helper = platform.getSchemaHelper()!;
  const connection = orm.em.getConnection();
  const rows = await connection.execute<{ table_name: string; schema_name: string; table_comment: string | null }[]>(
    `select c.relname as table_name, n.nspname as schema_name, pg_catalog.obj_description(c.oid, 'pg_class') as table_comment
       from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
      where n.nspname = ? and c.relkind in ('r', 'p') and c.relname <> 'schema_migrations' and not c.relispartition
      order by c.relname`,
    [schema],
  );
  const tables = rows.map((t) => ({ ...t, table_comment: t.table_comment ?? undefined }));
  const loaded = new DatabaseSchema(platform, schema);
  await helper.loadInformationSchema(loaded, connection, tables, [schema]);
  return loaded;
}
