// Jest global teardown: drops the run's schema templates (schema-template.ts) and stops the run's Gitea (gitea.ts);
// each test's own schema goes with its service's close.
import { stopSharedGitea } from "./gitea.ts";
import { TEST_RUN_KEY, templateSchemaPrefix } from "./schema-template.ts";
import { withTestDatabase } from "./test-database.ts";

export default async function globalTeardown(): Promise<void> {
  const run = process.env[TEST_RUN_KEY];
  if (!run) return;
  await stopSharedGitea();
  await withTestDatabase(async (db) => {
    const connection = db.em.getConnection();
    const schemas = await connection.execute<{ name: string }[]>(
      `select nspname as name from pg_namespace where starts_with(nspname, ?)`,
      [templateSchemaPrefix(run)],
    );
    for (const { name } of schemas) await connection.execute(`drop schema "${name}" cascade`);
  });
}
