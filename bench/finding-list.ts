// The vulnerability finding list through the gateway at a fixed 50 requests/s on a project with 50,000 open findings
// (target: p50 at most 10 ms and p99 at most 50 ms, every filter and sort, deep offsets included), and the finding
// detail at the same rate. The project is made here: a CycloneDX document of BENCH_COMPONENTS (20,000) real
// vulnerable package versions (the scanner-runner's vendored advisories, through its matcher fixture: at most about
// 2.6 findings per component, so 20,000 give about 52,000 findings where the issue's 10,000 gave 54,791) uploaded and
// scanned through the gateway, then the list polled until the portal's matching has recorded the findings those
// advisories give. Each query runs for BENCH_SECONDS (20) at BENCH_RATE (50)
// requests/s, paced open loop (bench/paced-load.ts: latency from each request's due time), over 16 keep-alive
// connections, as the super_admin, after a 3 s warm-up; "first ms" is the query's very first request, before the
// warm-up (the list's order sorted for that filter and sort: docs/findings.md, "Finding orders kept"). The walks read
// a different page on every request (offset advancing by the limit, from the start again past the end), as a client
// reading a project's findings does. CPU columns: the CPU time gateway and projects used during the run divided by
// the requests answered (pids from BENCH_RUN_DIR, as ./dev up records them); PostgreSQL's share is not counted.
// BENCH_PROJECT_ID reuses a project an earlier run made (its id is printed); BENCH_QUERIES picks queries (1-based).
import { fixturesOf } from "@sca/testkit";
import { pacedLoad } from "./paced-load.ts";
import { BASE, cpuMsOf, pidOf, Portal } from "./portal.ts";
import { printTable } from "./table.ts";
import { findingHeavySbom } from "./vulnerable-sbom.ts";

const DURATION = Number(process.env.BENCH_SECONDS ?? 20);
const RATE = Number(process.env.BENCH_RATE ?? 50);
const COMPONENTS = Number(process.env.BENCH_COMPONENTS ?? 20_000);
const CONNECTIONS = 16;
const TARGET_P50_MS = 10;
const TARGET_P99_MS = 50;
const TARGET_FINDINGS = 50_000;

const portal = await Portal.signIn();
const headers = { authorization: `Bearer ${portal.token}` };
const api = async (path: string) => {
  const res = await fetch(`${BASE}/api${path}`, { headers });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
};
const findingsPath = (project: string) => `/v1/projects/${project}/vulnerabilities`;
const totalOf = async (project: string, query = "") =>
  (await api(`${findingsPath(project)}?limit=1${query ? `&${query}` : ""}`)).total as number;

let project = process.env.BENCH_PROJECT_ID;
if (!project) {
  project = await portal.project(await portal.team());
  const matcher = await (await fixturesOf("scanner-runner")).vulnerabilityMatcher();
  const { bytes, expected } = findingHeavySbom(matcher, COMPONENTS);
  const started = Date.now();
  await portal.ingest(project, bytes, COMPONENTS);
  // Matching runs after the ingestion: wait for the findings the vendored advisories give.
  let total = 0;
  while (Date.now() - started < 600_000) {
    total = await totalOf(project);
    if (total >= expected) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  console.log(
    `project ${project} (BENCH_PROJECT_ID to reuse it): ${total} findings of ${expected} expected, ` +
      `listed ${((Date.now() - started) / 1000).toFixed(1)} s after the upload`,
  );
}
const findings = await totalOf(project);
if (findings < TARGET_FINDINGS) console.error(`only ${findings} findings: the target names ${TARGET_FINDINGS}`);

// Values the filters name, taken from the project itself.
const first = ((await api(`${findingsPath(project)}?limit=1&sort=-epss`)).items as Record<string, string>[])[0]!;
const page100 = (await api(`${findingsPath(project)}?limit=100&offset=${Math.floor(findings / 2)}`)).items as {
  id: string;
}[];
const deep = Math.max(0, findings - 100);
const half = Math.floor(findings / 2);
const walk = (query: string, limit = 100) => ({
  label: `${query ? `${query}&` : ""}limit=${limit}&offset=(walk)`,
  url: (i: number) =>
    `${findingsPath(project)}?${query ? `${query}&` : ""}limit=${limit}&offset=${(i * limit) % findings}`,
});
const fixed = (query: string) => ({ label: query, url: () => `${findingsPath(project)}?${query}` });

const allQueries: { label: string; url: (i: number) => string }[] = [
  // The default order (-severity,-epss): the first page, the last, and every page in turn.
  fixed("limit=100"),
  fixed(`limit=100&offset=${deep}`),
  walk(""),
  // Every sort, each walked through every page.
  ...["severity", "-cvss", "-epss", "published", "-vulnerability", "component", "status", "-detected"].map((s) =>
    walk(`sort=${s}`),
  ),
  // Every filter, at a deep offset where the match is large.
  fixed(`severity=critical,high&limit=100&offset=${Math.floor(half / 4)}`),
  fixed(`status=in_triage&sort=component&limit=100&offset=${half}`),
  fixed("known_exploited=true&limit=100"),
  fixed(`has_fix=true&sort=-cvss&limit=100&offset=${Math.floor(half / 2)}`),
  fixed("pending_confirmation=false&limit=100&offset=20000"),
  fixed("epss_min=0.01&limit=100"),
  fixed(`component_id=${first.component_id}&limit=100`),
  fixed("search=cve-2021&limit=100&offset=500"),
  // The detail, every request another finding.
  {
    label: "GET /v1/vulnerability_findings/{id}",
    url: (i) => `/v1/vulnerability_findings/${page100[i % page100.length]!.id}`,
  },
];
const picked = (process.env.BENCH_QUERIES ?? "").split(",").filter(Boolean).map(Number);
const queries = picked.length ? allQueries.filter((_, i) => picked.includes(i + 1)) : allQueries;

const rows: Record<string, string | number>[] = [];
for (const q of queries) {
  const url = (i: number) => `${BASE}/api${q.url(i)}`;
  const firstStarted = performance.now();
  const firstAnswer = await fetch(url(0), { headers });
  const answer = (await firstAnswer.json()) as { total?: number };
  const firstMs = performance.now() - firstStarted;
  const run = (seconds: number) => pacedLoad({ url, headers, rate: RATE, connections: CONNECTIONS, seconds });
  await run(3); // warm-up
  const processes = ["gateway", "projects"].map((name) => ({ name, pid: pidOf(name) }));
  const cpuBefore = processes.map((p) => cpuMsOf(p.pid));
  const r = await run(DURATION);
  const met =
    r.latency.p50 <= TARGET_P50_MS && r.latency.p99 <= TARGET_P99_MS && r.non2xx + r.errors + r.timeouts === 0;
  rows.push({
    query: q.label,
    matched: answer.total ?? 1,
    "first ms": Math.round(firstMs),
    "req/s": r.requests.average,
    "p50 ms": r.latency.p50,
    "p99 ms": r.latency.p99,
    "max ms": r.latency.max,
    errors: r.errors + r.timeouts + r.non2xx,
    ...Object.fromEntries(
      processes.map((p, i) => [
        `CPU ms/req ${p.name}`,
        (cpuMsOf(p.pid) - cpuBefore[i]!) / Math.max(1, r.requests.total),
      ]),
    ),
    [`p50 ≤ ${TARGET_P50_MS}, p99 ≤ ${TARGET_P99_MS}`]: met ? "met" : "MISSED",
  });
}
printTable(
  `GET /api/v1/projects/{id}/vulnerabilities on ${findings} open findings at ${RATE} req/s paced ` +
    `(${CONNECTIONS} connections, ${DURATION} s per query after a 3 s warm-up)`,
  rows,
);
