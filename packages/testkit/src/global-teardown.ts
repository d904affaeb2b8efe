// Jest global teardown: drops the run's schema templates (schema-template.ts); each test's own schema goes with its
// service's close.
import { openDatabase } from "@sca/db";
import { TEST_RUN_KEY, templateSchemaPrefix } from "./schema-template.ts";
import { testServers } from "./servers.ts";

export default async function globalTeardown(): Promise<void> {
  const run = process.env[TEST_RUN_KEY];
  if (!run) return;
  const db = await openDatabase({
    url: testServers().databaseUrl,
    schema: "public",
    entities: [],
    migrations: [],
    poolMax: 1,
  });
  try {
    const connection = db.em.getConnection();
    const schemas = await connection.execute<{ name: string }[]>(
      `select nspname as name from pg_namespace where starts_with(nspname, ?)`,
      [templateSchemaPrefix(run)],
    );
    for (const { name } of schemas) await connection.execute(`drop schema "${name}" cascade`);
  } finally {
    await db.close();
  }
}
