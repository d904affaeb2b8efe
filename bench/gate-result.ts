// The build gate's verdict through the gateway on a 10,000-component project (target: p99 at most 50 ms). The
// project is made as component-list makes it (a generated 10,000-component CycloneDX document uploaded and scanned
// through the gateway); a team gate policy with an EPSS threshold is set so that every check runs. Then
// GET /api/v1/projects/{id}/gate-result at a fixed BENCH_RATE (default 50) requests/s for BENCH_SECONDS (default 20)
// after a 3 s warm-up, with the super_admin's bearer access token (a project key of the super_admin reaches no
// project: its memberships are empty; the CI recipe's key is a team member's, tested in readme-gate-ci). CPU columns as component-list's, when BENCH_RUN_DIR has the pid files.
// Two loads per run (BENCH_LOAD=paced|autocannon|both): an even open-loop rate, latency from each request's due
// time (bench/paced-load.ts), and autocannon's overallRate as before (bursts at each second's start).
import { generateCycloneDxBom } from "@sca/testkit";
import { latencyColumns, loadsToRun, p99Verdict, runLoad } from "./paced-load.ts";
import { BASE, cpuMsOf, pidOf, Portal } from "./portal.ts";
import { printTable } from "./table.ts";

const DURATION = Number(process.env.BENCH_SECONDS ?? 20);
const RATE = Number(process.env.BENCH_RATE ?? 50);
const CONNECTIONS = 8;
const TARGET_P99_MS = 50;
const COMPONENTS = 10_000;
const API = `${BASE}/api`;

async function send(method: string, path: string, token: string, body?: unknown) {
  const res = await fetch(`${API}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

const portal = await Portal.signIn();
// BENCH_PROJECT_ID reuses a project an earlier run made (its id is printed), for before/after pairs on one snapshot.
let project = process.env.BENCH_PROJECT_ID ?? "";
if (!project) {
  const team = await portal.team();
  project = await portal.project(team);
  await portal.ingest(
    project,
    Buffer.from(JSON.stringify(generateCycloneDxBom({ components: COMPONENTS }))),
    COMPONENTS,
  );
  await send("PUT", `/v1/gate-policies/teams/${team}`, portal.token, { epss_threshold: 0.5 });
  console.log(`project ${project} (BENCH_PROJECT_ID to reuse it)`);
}
const path = `/v1/projects/${project}/gate-result`;
const sample = await send("GET", path, portal.token);
if (typeof sample.passed !== "boolean") throw new Error(`not a gate result: ${JSON.stringify(sample)}`);

const pids = ["gateway", "identity", "policy", "projects"].map((name) => {
  try {
    return { name, pid: pidOf(name) };
  } catch {
    return { name, pid: 0 };
  }
});
const rows: Record<string, string | number>[] = [];
for (const load of loadsToRun()) {
  const token = portal.token;
  const run = (seconds: number) =>
    runLoad(load, { url: `${BASE}/api${path}`, token, rate: RATE, connections: CONNECTIONS, seconds });
  await run(3); // warm-up
  const before = pids.map((p) => (p.pid ? cpuMsOf(p.pid) : 0));
  const r = await run(DURATION);
  rows.push({
    caller: "bearer access token (super_admin)",
    components: COMPONENTS,
    ...latencyColumns(load, r),
    ...Object.fromEntries(
      pids.flatMap((p, i) =>
        p.pid ? [[`CPU ms/req ${p.name}`, (cpuMsOf(p.pid) - before[i]!) / Math.max(1, r.requests.total)]] : [],
      ),
    ),
    ...p99Verdict(r, TARGET_P99_MS),
  });
}
printTable(
  `GET /api/v1/projects/{id}/gate-result on ${COMPONENTS} components (passed=${String(sample.passed)}, ` +
    `${String(sample.open_finding_count)} open findings) at ${RATE} req/s (${CONNECTIONS} connections, ${DURATION} s after a 3 s warm-up)`,
  rows,
);
