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
 * The tables of this one schema as the database has them. MikroORM's own introspection lists every schema's
 * tables, which other test files create and drop meanwhile; the migrations table is the migrator's, not an entity's.
 */
async function introspect(orm: MikroORM, schema: string): Promise<DatabaseSchema> {
  const platform = orm.em.getPlatform();
  const helper = platform.getSchemaHelper()!;
  const connection = orm.em.getConnection();
  const tables = (await helper.getAllTables(connection, [schema])).filter(
    (t) => t.schema_name === schema && t.table_name !== "schema_migrations",
  );
  const loaded = new DatabaseSchema(platform, schema);
  await helper.loadInformationSchema(loaded, connection, tables, [schema]);
  return loaded;
}
