// The component list through the gateway at a fixed 200 requests/s on a 10,000-component project, with filters and
// sorts (target: p99 at most 30 ms). The project is made here: a generated 10,000-component CycloneDX document
// (@sca/testkit's generator) uploaded and scanned through the gateway. Each query runs for BENCH_SECONDS (default
// 20) at BENCH_RATE (default 200) requests/s over 32 keep-alive connections (enough that the rate holds while answers are slow) (autocannon's overallRate paces the
// requests, so a slow answer does not lower the offered load), as the super_admin (a bearer access token).
// The CPU columns are the CPU time gateway, identity (which authenticates each access token) and projects used
// during the run divided by the requests answered (pids from BENCH_RUN_DIR, as ./dev up records them);
// PostgreSQL's share is not counted. Two loads per query (BENCH_LOAD=paced|autocannon|both): an even open-loop
// rate, latency from each request's due time (bench/paced-load.ts), and autocannon's overallRate as before.
import { generateCycloneDxBom } from "@sca/testkit";
import { latencyColumns, loadsToRun, p99Verdict, runLoad } from "./paced-load.ts";
import { BASE, cpuMsOf, pidOf, Portal } from "./portal.ts";
import { printTable } from "./table.ts";

const DURATION = Number(process.env.BENCH_SECONDS ?? 20);
const RATE = Number(process.env.BENCH_RATE ?? 200);
const CONNECTIONS = 32;
const TARGET_P99_MS = 30;
const COMPONENTS = 10_000;

const portal = await Portal.signIn();
// BENCH_PROJECT_ID reuses a project an earlier run made (its id is printed), so a before/after comparison lists the
// same snapshot without ingesting again.
const project = process.env.BENCH_PROJECT_ID || (await portal.project(await portal.team()));
if (!process.env.BENCH_PROJECT_ID) {
  const bom = Buffer.from(JSON.stringify(generateCycloneDxBom({ components: COMPONENTS })));
  await portal.ingest(project, bom, COMPONENTS);
  console.log(`project ${project} (BENCH_PROJECT_ID to reuse it)`);
}

const allQueries = [
  // A search matching about a tenth of the snapshot (package-1, package-1x, package-1xx, ...), by license, descending.
  "search=package-1&sort=license&order=desc",
  // Direct dependencies (the primary's ~50) by severity, most severe first.
  "direct=true&sort=-severity",
  // Severity and scope filters (nothing is assessed yet, so `unknown` matches nothing), then optional by license.
  "severity=critical,high&dependency_scope=required&sort=license",
  "dependency_scope=optional&sort=-license,name&limit=100",
  // A deep page of the default order.
  "offset=5000&limit=50",
];
// BENCH_QUERIES: numbers (1-based, comma-separated) of the queries to run; all by default.
const picked = (process.env.BENCH_QUERIES ?? "").split(",").filter(Boolean).map(Number);
const queries = picked.length ? allQueries.filter((_, i) => picked.includes(i + 1)) : allQueries;

const rows: Record<string, string | number>[] = [];
for (const q of queries) {
  const path = `/api/v1/projects/${project}/components?${q}`;
  const matched = await portal.total(project, `&${q.replace(/(^|&)limit=\d+/, "")}`);
  for (const load of loadsToRun()) {
    const run = (seconds: number) =>
      runLoad(load, { url: `${BASE}${path}`, token: portal.token, rate: RATE, connections: CONNECTIONS, seconds });
    await run(3); // warm-up
    const processes = ["gateway", "identity", "projects"].map((name) => ({ name, pid: pidOf(name) }));
    const cpuBefore = processes.map((p) => cpuMsOf(p.pid));
    const r = await run(DURATION);
    rows.push({
      query: q,
      matched,
      ...latencyColumns(load, r),
      ...Object.fromEntries(
        processes.map((p, i) => [
          `CPU ms/req ${p.name}`,
          (cpuMsOf(p.pid) - cpuBefore[i]!) / Math.max(1, r.requests.total),
        ]),
      ),
      ...p99Verdict(r, TARGET_P99_MS),
    });
  }
}
printTable(
  `GET /api/v1/projects/{id}/components on ${COMPONENTS} components at ${RATE} req/s (${CONNECTIONS} connections, ${DURATION} s per query after a 3 s warm-up)`,
  rows,
);
