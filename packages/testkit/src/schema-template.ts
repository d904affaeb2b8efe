// A service whose start imports data is imported once per test run, not once per instance. The scanner-runner's start
// imports the vendored advisory snapshot and the four enrichment feeds (about 9 s of CPU an instance, 26 instances a
// run). The first instance of a run that needs it starts the real service in a template schema and waits until that
// work is done; every later instance gets a copy of the template's imported rows before it starts, finds its data
// current and imports nothing. An instance whose configuration or seams could change what is imported (its own
// repository, snapshots, feeds) imports as before. The jest global set-up names the run; without one (a bench) every
// instance imports.
import { AsyncLocalStorage } from "node:async_hooks";
import { migrateToHead, openDatabase } from "@sca/db";
import { createLogger } from "@sca/log";
import { startServiceInstance, type ConfigKeys, type KafkaUse, type ServiceDefinition } from "@sca/runtime";
import { withTestDatabase } from "./test-database.ts";
import { deleteTopicsOf } from "./topics.ts";

interface Template {
  /** The tables the start-up import fills, copied into every instance. */
  tables: readonly string[];
  /** True once the template instance's start-up import is done ({schema}: the template's). */
  ready: string;
  /** Keys that change what is imported: an instance given one imports for itself... */
  changedBy: RegExp;
  /** ...unless it gives it the value the template is built with. */
  builtWith: Readonly<Record<string, string>>;
}

const TEMPLATES: Readonly<Record<string, Template>> = {
  "scanner-runner": {
    tables: [
      "vulndb_advisories",
      "vulndb_imports",
      "feed_status",
      "kev_entries",
      "epss_scores",
      "eol_products",
      "malicious_packages",
    ],
    // The advisory import succeeded and each of the four feeds made its first attempt (vendored snapshot, refresh).
    ready: `select (select count(*) from "{schema}".vulndb_imports where last_succeeded_at is not null) > 0
      and (select count(*) from "{schema}".feed_status where last_attempt_at is not null) = 4 as ready`,
    changedBy: /^(VULNDB_|KEV_|EPSS_|EOL_|MALICIOUS_|FEED_)/,
    // No feed is refreshed in the template: without a test's own feed server (its *_FEED_URL) a refresh here could
    // only fail, so each feed's status is "skipped", as an instance with the refresh turned off records it.
    builtWith: {
      KEV_REFRESH_ENABLED: "false",
      EPSS_REFRESH_ENABLED: "false",
      EOL_REFRESH_ENABLED: "false",
      MALICIOUS_REFRESH_ENABLED: "false",
    },
  },
};

/** Set by the jest global set-up: the run whose templates these are (dropped by its teardown). */
export const TEST_RUN_KEY = "SCA_TEST_RUN";
const TEMPLATE_READY_TIMEOUT_MS = 180_000;

export function templateSchemaPrefix(run: string): string {
  return `tmpl_${run}_`;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDefinition = ServiceDefinition<ConfigKeys, KafkaUse | undefined, any>;

export interface TemplateUse {
  databaseUrl: string;
  /** The instance's configuration: the test kit's defaults with the test's own. */
  env: Record<string, string>;
  /** The keys the test itself set. */
  testEnv: Readonly<Record<string, string>>;
  seamsReplaced: boolean;
}

/**
 * Migrates `schema` and copies the run's template of the service into it, building the template first when this is
 * the run's first instance. Does nothing for a service without a template, outside a jest run, or for an instance
 * configured to import something else.
 */
export async function seedFromTemplate(def: AnyDefinition, schema: string, use: TemplateUse): Promise<void> {
  const template = TEMPLATES[def.name];
  const run = process.env[TEST_RUN_KEY];
  if (!template || !run || use.seamsReplaced) return;
  const own = Object.entries(use.testEnv).filter(([key]) => template.changedBy.test(key));
  if (own.some(([key, value]) => template.builtWith[key] !== value)) return;
  const templateSchema = `${templateSchemaPrefix(run)}${def.name.replaceAll("-", "_")}`;
  await ensureTemplate(def, templateSchema, template, use);
  const orm = await openDatabase({
    url: use.databaseUrl,
    schema,
    entities: def.entities,
    migrations: def.migrations,
    poolMax: 1,
  });
  try {
    const connection = orm.em.getConnection();
    // A second instance on a schema that exists (a test's next worker) shares what the first one has.
    const [existing] = await connection.execute<{ found: string | null }[]>(
      `select to_regnamespace(?)::text as found`,
      [`"${schema}"`],
    );
    if (existing?.found) return;
    await migrateToHead(orm);
    for (const table of template.tables)
      await connection.execute(`insert into "${schema}"."${table}" select * from "${templateSchema}"."${table}"`);
  } finally {
    await orm.close();
  }
}

/**
 * Builds the template once: the workers of a run take one transaction-scoped advisory lock (held on the transaction's
 * connection until it ends), and the first one builds it.
 */
async function ensureTemplate(
  def: AnyDefinition,
  templateSchema: string,
  template: Template,
  use: TemplateUse,
): Promise<void> {
  // Bound here, outside the lock's transaction: MikroORM finds the transaction of an entity manager by async context
  // (under one context name for every ORM), so the template instance's ORM, started inside it, would use the lock's.
  const build = AsyncLocalStorage.bind(() => buildTemplate(def, templateSchema, template, use));
  // Two connections: the lock's transaction, and one to clear what a build that failed half-way left.
  await withTestDatabase(async (lock) => {
    await lock.em.fork().transactional(async (em) => {
      await em.execute(`select pg_advisory_xact_lock(hashtext(?))`, [templateSchema]);
      const [built] = await em.execute<{ ready: string | null }[]>(`select to_regclass(?)::text as ready`, [
        `"${templateSchema}".template_ready`,
      ]);
      if (built?.ready) return;
      await lock.em.getConnection().execute(`drop schema if exists "${templateSchema}" cascade`);
      await build();
    });
  }, 2);
}

async function buildTemplate(
  def: AnyDefinition,
  templateSchema: string,
  template: Template,
  use: TemplateUse,
): Promise<void> {
  const instance = await startServiceInstance(def, {
    migrate: true,
    listen: false,
    schema: templateSchema,
    logger: createLogger(`${def.name}-template`, "ERROR"),
    env: { ...use.env, ...template.builtWith, KAFKA_TOPIC_PREFIX: `${templateSchema}.` },
  });
  const connection = instance.orm.em.getConnection();
  try {
    const deadline = Date.now() + TEMPLATE_READY_TIMEOUT_MS;
    for (;;) {
      const [row] = await connection.execute<{ ready: boolean }[]>(
        template.ready.replaceAll("{schema}", templateSchema),
      );
      if (row?.ready) break;
      if (Date.now() > deadline)
        throw new Error(`${def.name}'s template: its start-up import was not done in ${TEMPLATE_READY_TIMEOUT_MS} ms`);
      await new Promise((done) => setTimeout(done, 200));
    }
    await connection.execute(`create table "${templateSchema}".template_ready ()`);
  } finally {
    await instance.close(0);
    if (instance.kafka) await deleteTopicsOf(instance.kafka);
  }
}
