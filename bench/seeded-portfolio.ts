// A portfolio written with COPY into a fresh database migrated for projects (the test kit's projects fixture
// `portfolio`), for the benches that read dashboards over many projects (dashboards.ts, ui-dashboard.ts). The seed keeps
// no figures: the projects daily job, which runs when projects starts, counts them (dailyRowWritten says when).
import { spawnSync } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { join } from "node:path";
import { column, openDatabase, rawQuery } from "@sca/db";
import { createDatabase, fixturesOf } from "@sca/testkit";

const ROOT = join(import.meta.dirname, "..");
type Orm = Awaited<ReturnType<typeof openDatabase>>;

export interface SeededPortfolio {
  db: Awaited<ReturnType<typeof createDatabase>>;
  /** A connection to the projects schema (two connections). */
  orm: Orm;
  packageNames: string[];
  seedSeconds: number;
}

/** `projects` projects over `teams` made-up teams (identity does not know them: their names are empty). */
export async function seedPortfolio(opts: {
  label: string;
  projects: number;
  teams: number;
  componentsPerProject: number;
  findingsPerProject: number;
}): Promise<SeededPortfolio> {
  const db = await createDatabase(opts.label);
  const migrated = spawnSync(process.execPath, ["src/main.ts", "migrate"], {
    cwd: join(ROOT, "services", "projects"),
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "/tmp",
      APP_ENV: "dev",
      DATABASE_URL: db.url,
      REDIS_URL: "redis://127.0.0.1:56379/2",
      KAFKA_BROKERS: process.env.KAFKA_BROKERS ?? "127.0.0.1:59092",
      SECRET_KEY: randomBytes(36).toString("base64url"),
    },
    encoding: "utf8",
  });
  if (migrated.status !== 0) throw new Error(`migrating projects failed:\n${migrated.stdout}${migrated.stderr}`);
  const orm = await openDatabase({ url: db.url, schema: "projects", entities: [], migrations: [], poolMax: 2 });
  const started = Date.now();
  const { packageNames } = await (
    await fixturesOf("projects")
  ).portfolio(orm, {
    teams: Array.from({ length: opts.teams }, () => ({ id: randomUUID(), organizationId: null })),
    projects: opts.projects,
    componentsPerProject: opts.componentsPerProject,
    findingsPerProject: opts.findingsPerProject,
  });
  const seedSeconds = (Date.now() - started) / 1000;
  await rawQuery(orm.em.fork(), "analyze", []);
  console.log(
    `seeded ${opts.projects} projects, ${opts.projects * opts.componentsPerProject} components, ` +
      `${opts.projects * opts.findingsPerProject} findings in ${seedSeconds.toFixed(0)} s`,
  );
  return { db, orm, packageNames, seedSeconds };
}

/** Whether the daily job has written the organization's row of `day` (YYYY-MM-DD): its last row, every project counted. */
export async function dailyRowWritten(orm: Orm, day: string): Promise<boolean> {
  const [row] = await rawQuery(
    orm.em.fork(),
    "select count(*) as n from daily_metrics where scope = 'organization' and day = ?::date",
    [day],
    { n: column.integer },
  );
  return row!.n > 0;
}
