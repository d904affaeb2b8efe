// The dashboards at scale (issue 28): a portfolio of BENCH_PROJECTS (1,000) projects of BENCH_COMPONENTS (2,000)
// components and BENCH_FINDINGS (500) open findings each (2,000,000 components and 500,000 findings at the
// defaults), written with COPY by the test kit's projects fixture `portfolio` into a fresh database before the portal
// starts; then:
// - the daily job (it runs when projects starts): from the first project's figures counted to the last daily row
//   written (database clocks), the projects process's peak resident memory meanwhile (target: 60 s, memory flat).
//   Twice: the first run counts every project (the seed keeps no figures: a deployment's one-off backfill after the
//   migration); the second is a day's run (BENCH_BEHIND, 1 % of the projects, written since they were counted: their
//   kept finding-write count is made stale), on a second portal after today's rows are dropped (a new day);
// - the overview, the action queue and teams by risk at BENCH_RATE (20) requests/s paced for BENCH_SECONDS (20) each
//   as the super_admin (the whole organization: the widest reach; target p99 <= 100 ms);
// - a package search across the portfolio (a name drawn per request from the seeded pool) at the same rate
//   (target p99 <= 200 ms), by name and by name and version range.
// Offline: a portal of its own (@sca/testkit's startPortalProcesses) on the test servers of scripts/env.sh.
//   . scripts/env.sh && node bench/dashboards.ts
// The dashboards' rate limit is raised for the run (DASHBOARD_RATE_LIMIT): the bench is one actor.
import { column, rawQuery, rawStatement } from "@sca/db";
import { startPortalProcesses } from "@sca/testkit";
import { pacedLoad } from "./paced-load.ts";
import { memoryOf } from "./portal.ts";
import { dailyRowWritten, seedPortfolio } from "./seeded-portfolio.ts";
import { printTable } from "./table.ts";

const PROJECTS = Number(process.env.BENCH_PROJECTS ?? 1_000);
const COMPONENTS = Number(process.env.BENCH_COMPONENTS ?? 2_000);
const FINDINGS = Number(process.env.BENCH_FINDINGS ?? 500);
const TEAMS = Number(process.env.BENCH_TEAMS ?? 60);
const RATE = Number(process.env.BENCH_RATE ?? 20);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const BEHIND = Number(process.env.BENCH_BEHIND ?? Math.ceil(PROJECTS / 100));

const { db, orm, packageNames } = await seedPortfolio({
  label: "bench_dashboards",
  projects: PROJECTS,
  teams: TEAMS,
  componentsPerProject: COMPONENTS,
  findingsPerProject: FINDINGS,
});

const today = new Date().toISOString().slice(0, 10);
const jobRows: Record<string, string | number>[] = [];

/** A portal whose projects process runs the daily job at start; returns once the day's organization row is written. */
async function portalAfterDailyJob(run: string) {
  const started = Date.now();
  const portal = await startPortalProcesses({
    databaseUrl: db.url,
    label: "bench-dashboards",
    env: { DASHBOARD_RATE_LIMIT: "1000000/minute" },
  });
  let peakRss = 0;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, memoryOf(portal.pids.projects).rss)), 100);
  // VmHWM: the peak since the process started, the job included even where it ran before the portal answered.
  while (!(await dailyRowWritten(orm, today))) {
    if (Date.now() - started > 900_000) throw new Error("the daily job did not finish in 15 minutes");
    await new Promise((r) => setTimeout(r, 200));
  }
  clearInterval(sampler);
  // The run's own recounts: figures counted since this portal started (database clock).
  const [job] = await rawQuery(
    orm.em.fork(),
    `select extract(epoch from (select max(recorded_at) from daily_metrics where day = ?::date)
              - (select min(counted_at) from project_figures where counted_at >= ?::timestamptz)) as seconds,
            extract(epoch from (select max(recorded_at) from daily_metrics where day = ?::date)
              - (select max(counted_at) from project_figures where counted_at >= ?::timestamptz)) as rows_seconds,
            (select count(*) from project_figures where counted_at >= ?::timestamptz) as recounted,
            (select count(*) from daily_metrics where day = ?::date) as rows`,
    [today, jobStart, today, jobStart, jobStart, today],
    { seconds: column.number, rowsSeconds: column.number, recounted: column.integer, rows: column.integer },
  );
  const memory = memoryOf(portal.pids.projects);
  jobRows.push({
    run,
    "projects recounted": job!.recounted,
    "daily rows": job!.rows,
    seconds: job!.seconds,
    "of which daily rows s": job!.rowsSeconds,
    "projects sampled peak MiB": Math.round(peakRss),
    "VmHWM MiB": Math.round(memory.hwm),
    "after MiB": Math.round(memory.rss),
  });
  return portal;
}

const dbNow = async () =>
  (await rawQuery(orm.em.fork(), "select now()::text as now", [], { now: column.text }))[0]!.now;
let jobStart = await dbNow();
const first = await portalAfterDailyJob("first: every project counted (backfill)");
await first.stop();

// A new day: today's rows dropped (the bench's own database), BEHIND projects written since they were counted.
await rawStatement(orm.em.fork(), "delete from daily_metrics where day = ?::date", [today]);
await rawStatement(
  orm.em.fork(),
  `update project_figures set finding_writes = -1
    where project_id in (select project_id from project_figures order by project_id limit ?)`,
  [BEHIND],
);
jobStart = await dbNow();
const portal = await portalAfterDailyJob(`a day's run: ${BEHIND} projects behind`);
printTable("the dashboards' daily job (target: 60 s, memory flat)", jobRows);

const token = await portal.superAdmin();
const headers = { authorization: `Bearer ${token}` };
const api = `${portal.origin}/api`;
const rows: Record<string, string | number>[] = [];
const queries: [string, string | ((i: number) => string), number][] = [
  ["overview", `${api}/v1/dashboard/overview`, 100],
  ["action queue", `${api}/v1/dashboard/action-queue`, 100],
  ["teams by risk", `${api}/v1/dashboard/teams-by-risk`, 100],
  [
    "package search",
    (i) => `${api}/v1/portfolio/search?package=${packageNames[(i * 7919) % packageNames.length]}`,
    200,
  ],
  [
    "package search, version range",
    (i) =>
      `${api}/v1/portfolio/search?package=${packageNames[(i * 7919) % packageNames.length]}` +
      `&version=${encodeURIComponent(">=2.0.0, <4.0.0")}`,
    200,
  ],
];
for (const [name, url, target] of queries) {
  await pacedLoad({ url, headers, rate: RATE, seconds: 3, connections: 8 });
  const r = await pacedLoad({ url, headers, rate: RATE, seconds: SECONDS, connections: 8 });
  rows.push({
    query: name,
    requests: r.requests.total,
    "p50 ms": r.latency.p50,
    "p99 ms": r.latency.p99,
    "max ms": r.latency.max,
    "target p99": target,
    errors: r.errors + r.non2xx + r.timeouts,
  });
}
printTable(`dashboards and search at ${RATE} req/s paced, ${SECONDS} s each`, rows);

await portal.stop();
await orm.close();
await db.drop();
