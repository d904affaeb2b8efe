// Findings after new data, without a portal (real PostgreSQL, Kafka and Redis, as the tests use them; run as
// `node bench/rematch.ts` with scripts/env.sh's environment, or through bench/run.sh):
// - a full re-match of 100 projects of 1,000 components after an advisory refresh (target ≤ 20 s, issue 33):
//   identity and projects (and policy, which categorises their licenses) run in this process; 100 projects get an
//   inventory of 1,000 real package names of the vendored advisory set (their versions where advisories start) and
//   their findings from an older database (the vendored advisories without every tenth). Then a scanner-runner starts
//   in a process of its own on a fresh schema: its first import (the whole vendored set, every advisory changed)
//   queues every package name, and the clock runs from the queue filling to it being empty (every held version
//   matched and recorded, findings dated, events queued). BENCH_RUNS (3) re-matches in a row: before each further
//   one the projects' findings go back to the older database's (RecordScanMatches again) and a fresh runner starts.
//   Each run's wall time is set against the CPU time of the processes doing the work (the runner, this process, and
//   the PostgreSQL backends of the database): more than 3 times that marks the row and the bench exits non-zero,
//   as does a run over the target. Where the time went: the runner's and projects' stage lines
//   (refresh-propagation.ts "re-match batch recorded", projects' "refresh matches recorded").
//   BENCH_CONDITION: `quiet` (nothing of ours beside it) or `busy`: first a portal of its own (@sca/testkit's
//   startPortalProcesses, every service a process, its own database on the same PostgreSQL and Kafka) ingests a
//   10,000- and a 50,000-component SBOM through the gateway, and stays up through the re-matches (issue 33's run 1).
// - a 10,000-component SBOM (real vulnerable package names) from stored upload to findings queryable (target ≤ 5 s):
//   the job is published onto the runner's lane as the orchestrator would (the gateway's upload and scan creation
//   are not in this clock: bench/ingest.ts measures them, about 0.2 s), then projects' finding list is polled every
//   20 ms until its total is the count the same advisories give. BENCH_SBOM=0 skips the SBOM parts.
// The package names, the older database's findings, the expected counts and the job come from the scanner-runner's
// fixtures (its matcher over the vendored advisories, its job as the orchestrator publishes it; fixturesOf).
// - the runner's peak resident memory (sampled every 50 ms, and VmHWM) through both (target ≤ 300 MB).
// - the same 10,000-component scan from stored upload to succeeded, with the registry lookups on (default settings)
//   against the registry BENCH_REGISTRY names: `slow` (answers after BENCH_REGISTRY_DELAY_MS), `silent` (accepts and
//   never answers), `closed` (a closed port), or `off` (LICENSE_FETCH_ENABLED and CURRENCY_ENABLED false); target:
//   at most 1.5 times `off`'s, whichever registry. BENCH_REMATCH_PROJECTS=0 BENCH_SBOM_LARGE=0 runs this part alone.
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { bytesSource, DirectoryArtefactStore } from "@sca/artefacts";
import { createKafka, ensureTopics, TOPICS } from "@sca/kafka";
import { createLogger } from "@sca/log";
import { DirectoryService } from "@sca/proto/sca/identity/v1/directory_pb.ts";
import { ScanAttemptFinishedSchema, ScanLogLineSchema, ScanProgressSchema } from "@sca/proto/sca/events/v1/scans_pb.ts";
import { InventoryService } from "@sca/proto/sca/projects/v1/inventory_pb.ts";
import { ProjectService } from "@sca/proto/sca/projects/v1/projects_pb.ts";
import { VulnerabilityFindingService } from "@sca/proto/sca/projects/v1/vulnerability_findings_pb.ts";
import { VulnerabilityMatchService } from "@sca/proto/sca/projects/v1/vulnerability_matches_pb.ts";
import {
  callAs,
  createDatabase,
  EventReader,
  fixturesOf,
  ingestArtefact,
  startPortalProcesses,
  startService,
  testServers,
  uniqueName,
} from "@sca/testkit";
import { closedRegistryEnv, startSlowRegistry } from "./offline/slow-registry.ts";
import { cpuMsOf, Portal, redisDatabase } from "./portal.ts";
import { printTable } from "./table.ts";
import { artefactOf, pick, vulnerableSbom } from "./vulnerable-sbom.ts";

const PROJECTS = Number(process.env.BENCH_REMATCH_PROJECTS ?? 100);
const COMPONENTS = 1000;
const RUNS = PROJECTS > 0 ? Number(process.env.BENCH_RUNS ?? 3) : 1;
const CONDITION = process.env.BENCH_CONDITION ?? "quiet";
if (!["quiet", "busy"].includes(CONDITION)) throw new Error(`BENCH_CONDITION=${CONDITION}: quiet or busy`);
const SBOM_COMPONENTS = Number(process.env.BENCH_SBOM ?? 10_000);
const SBOM_LARGE = SBOM_COMPONENTS > 0 ? Number(process.env.BENCH_SBOM_LARGE ?? 50_000) : 0;
const TARGET_REMATCH_MS = 20_000;
/** A re-match's wall time over this many times its processes' CPU time is waiting, not work (issue 33). */
const MAX_WALL_PER_CPU = 3;
const TARGET_SBOM_MS = 5000;
const TARGET_RSS_MIB = 300;
// As scripts/stack/portal.sh starts the scanner-runner (and the chart's values set it): a small young generation and
// a capped old generation.
const RUNNER_NODE_OPTIONS = "--max-semi-space-size=8"; // as scripts/stack/portal.sh starts it

const runnerFixtures = await fixturesOf("scanner-runner");
const older = await runnerFixtures.vulnerabilityMatcher({ keep: (i) => i % 10 !== 0 });
const full = await runnerFixtures.vulnerabilityMatcher();
const pool = full.samplePurls();
const dir = await mkdtemp(join(tmpdir(), "sca-bench-rematch-"));
const store = new DirectoryArtefactStore(dir);

/**
 * BENCH_CONDITION=busy: a portal of its own, on a database of its own beside the bench's (same PostgreSQL, same
 * Kafka), that has just ingested a 10,000- and a 50,000-component SBOM through its gateway (their findings matched,
 * its tables large, its autovacuum and the WAL busy); it stays up, idle, through the re-matches.
 */
async function busyPortal(): Promise<{ stop(): Promise<void> }> {
  const database = await createDatabase("sca_bench");
  const portal = await startPortalProcesses({
    databaseUrl: database.url,
    label: "bench",
    env: {
      // The feeds' refreshes would ask the public sources: the stored (vendored) data stays.
      ...Object.fromEntries(["KEV", "EPSS", "EOL", "MALICIOUS"].map((feed) => [`${feed}_REFRESH_ENABLED`, "false"])),
      // A Redis database of its own (the sign-in limit is not shared with other benches' portals).
      REDIS_URL: redisDatabase(4),
    },
  });
  const stop = async () => {
    await portal.stop();
    await database.drop();
    await rm(portal.logDir, { recursive: true, force: true });
  };
  try {
    const api = Portal.withToken(portal.origin, await portal.superAdmin());
    const team = await api.team();
    for (const [n, seed] of [
      [10_000, 10],
      [50_000, 50],
    ] as const) {
      const sbom = vulnerableSbom(full, n, seed);
      const t = await api.ingest(await api.project(team), sbom.bytes, n, 50, sbom.expected);
      console.error(`busy portal: ${n} components ingested, ${t.findings} findings in ${t.findingsMs} ms`);
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { stop };
}
const busy = CONDITION === "busy" ? await busyPortal() : null;

const identity = await startService("identity", {
  env: { PASSWORD_RESET_BASE_URL: "https://portal.example.com/reset-password" },
});
// Policy answers projects' license categorisation of each ingested snapshot (its license-policy consumer retries,
// holding its partition, while policy is unreachable), as in the portal.
const policy = await startService("policy", { env: { IDENTITY_RPC_URL: identity.url! } });
// projects' stage lines of each RecordRefreshMatches call ("refresh matches recorded") are kept for the tables;
// its errors go to stderr.
const refreshCalls: Record<string, unknown>[] = [];
const projects = await startService("projects", {
  env: { IDENTITY_RPC_URL: identity.url!, POLICY_RPC_URL: policy.url!, ARTEFACT_DIR: dir },
  logger: createLogger("projects-bench", "INFO", {
    write: (line: string) => {
      if (line.includes(`"msg":"refresh matches recorded"`))
        refreshCalls.push(JSON.parse(line) as Record<string, unknown>);
      else if (/"level":"(error|fatal)"/.test(line)) process.stderr.write(`projects: ${line}`);
    },
  }),
});
// Caller tokens are short-lived: signed per call.
const runnerCaller = () => callAs.service("scanner-runner");
const admin = () => callAs.superAdmin(randomUUID());
const slug = `bench-${randomUUID().slice(0, 8)}`;
const { team } = await identity.client(DirectoryService).createTeam({ name: slug, slug }, await admin());
const developer = () =>
  callAs.user(randomUUID(), {
    memberships: [{ team_id: team!.id, organization_id: team!.organizationId!, role: "developer" }],
  });

async function project(i: number): Promise<string> {
  const { project: p } = await projects
    .client(ProjectService)
    .createProject({ project: { teamId: team!.id, name: `Re-match ${i}`, slug: `${slug}-${i}` } }, await developer());
  return p!.id;
}

console.error(`pool: ${pool.length} package names; ${PROJECTS} projects of ${COMPONENTS} components being made`);
/** Records the older database's findings of each project's snapshot (again: a finding kept keeps its id). */
async function recordOlder(
  made: { projectId: string; scanId: string; purls: string[] }[],
  databaseVersion: string,
): Promise<number> {
  let findings = 0;
  for (const { projectId, scanId, purls } of made) {
    const { vulnerabilities, verdicts } = older.scanMatches(purls);
    const recorded = await projects
      .client(VulnerabilityMatchService)
      .recordScanMatches({ projectId, scanId, databaseVersion, vulnerabilities, verdicts }, await runnerCaller());
    findings += recorded.findingCount;
  }
  return findings;
}
const made: { projectId: string; scanId: string; purls: string[] }[] = [];
for (let i = 0; i < PROJECTS; i++) {
  const projectId = await project(i);
  const purls = pick(pool, COMPONENTS, i + 1);
  const bytes = artefactOf(purls);
  const scanId = await ingestArtefact(projects.client(InventoryService), store, projectId, bytes, {
    caller: await runnerCaller(),
  });
  made.push({ projectId, scanId, purls });
}
const olderFindings = await recordOlder(made, "bench-older");

// The runner's registry lookups (license, currency; on unless LICENSE_FETCH_ENABLED / CURRENCY_ENABLED say false)
// ask a local registry (BENCH_REGISTRY): by default one that answers each release after BENCH_REGISTRY_DELAY_MS (30).
// No public registry is asked.
const REGISTRY_MODE = process.env.BENCH_REGISTRY ?? "slow";
if (!["slow", "silent", "closed", "off"].includes(REGISTRY_MODE))
  throw new Error(`BENCH_REGISTRY=${REGISTRY_MODE}: slow, silent, closed or off`);
const registry = await startSlowRegistry(
  REGISTRY_MODE === "silent" ? Infinity : Number(process.env.BENCH_REGISTRY_DELAY_MS ?? 30),
);
const registryEnv =
  REGISTRY_MODE === "closed"
    ? await closedRegistryEnv()
    : REGISTRY_MODE === "off"
      ? { ...registry.env, LICENSE_FETCH_ENABLED: "false", CURRENCY_ENABLED: "false" }
      : registry.env;
interface Runner {
  schema: string;
  /** The runner's next report of this event (a JSON line on its stdout). */
  next(event: string): Promise<Record<string, unknown>>;
  /** Its re-match stage lines ("re-match batch recorded", "refreshed data reached the findings"). */
  stageLines: Record<string, unknown>[];
  send(word: "memory" | "stop"): void;
  exited: Promise<void>;
}

/** A scanner-runner in a process of its own on a fresh schema (offline/runner-process.ts): it imports at start. */
function startRunner(): Runner {
  const schema = uniqueName("scanner_runner_bench");
  const child = spawn(process.execPath, [new URL("./offline/runner-process.ts", import.meta.url).pathname], {
    env: {
      ...process.env,
      NODE_OPTIONS: process.env.BENCH_RUNNER_NODE_OPTIONS ?? RUNNER_NODE_OPTIONS,
      BENCH_RUNNER_SCHEMA: schema,
      BENCH_ARTEFACT_DIR: dir,
      BENCH_PROJECTS_URL: projects.url!,
      ...registryEnv,
    },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout });
  // Listened for from the start: the runner may exit while the bench is still stopping its event reader.
  const exited = new Promise<void>((resolve) =>
    child.once("exit", (code, signal) => {
      if (code !== 0) console.error(`the runner exited: code ${code}, signal ${signal}`);
      resolve();
    }),
  );
  const waiting: { event: string; resolve: (o: Record<string, unknown>) => void }[] = [];
  const seen: Record<string, unknown>[] = [];
  const stageLines: Record<string, unknown>[] = [];
  lines.on("line", (line) => {
    let o: Record<string, unknown>;
    try {
      o = JSON.parse(line) as Record<string, unknown>;
    } catch {
      // Not the runner's report: V8's own output (its last GCs before running out of heap, for one).
      console.error(`runner: ${line}`);
      return;
    }
    // The runner's own log lines: its re-match stages are kept, warnings and errors shown; its reports have an event.
    if (o.event === undefined) {
      if (o.stageMs !== undefined) stageLines.push(o);
      else console.error(`runner: ${line.slice(0, 2000)}`);
      return;
    }
    // Each report goes to one waiter, or waits in `seen` for the next() that asks for it.
    const w = waiting.findIndex((x) => x.event === o.event);
    if (w >= 0) waiting.splice(w, 1)[0]!.resolve(o);
    else seen.push(o);
  });
  const next = (event: string) =>
    new Promise<Record<string, unknown>>((resolve) => {
      const already = seen.find((o) => o.event === event);
      if (already) {
        seen.splice(seen.indexOf(already), 1);
        resolve(already);
      } else waiting.push({ event, resolve });
    });
  return { schema, next, stageLines, send: (word) => child.stdin.write(`${word}\n`), exited };
}

/** CPU ms so far of each PostgreSQL backend serving the bench's database (projects', identity's, the runner's). */
async function backendCpuMs(): Promise<Map<number, number>> {
  const rows = await projects.orm.em
    .getConnection()
    .execute<{ pid: number }[]>(
      `select pid from pg_stat_activity where datname = current_database() and backend_type = 'client backend'`,
    );
  const cpu = new Map<number, number>();
  for (const { pid } of rows) {
    try {
      cpu.set(pid, cpuMsOf(pid));
    } catch {
      // Gone since (a closed connection): its time is not counted.
    }
  }
  return cpu;
}

const sum = (values: Iterable<number>) => [...values].reduce((a, b) => a + b, 0);
const rematchRows: Record<string, string | number>[] = [];
const stageRows: Record<string, string | number>[] = [];
let failed = false;
let runner: Runner | null = null;
let started0: Record<string, unknown> = {};
let drained: Record<string, unknown> = {};
for (let run = 1; run <= RUNS && PROJECTS > 0; run++) {
  if (runner) {
    runner.send("stop");
    await runner.exited;
    await recordOlder(made, `bench-older-${run}`);
  }
  const current = startRunner();
  runner = current;
  started0 = await current.next("started");
  const queued = await current.next("queued");
  // This process's CPU (identity and projects answering) and the database's through the re-match, beside the
  // runner's own.
  const benchCpuBefore = process.cpuUsage();
  const backendsBefore = await backendCpuMs();
  const callsBefore = refreshCalls.length;
  drained = await current.next("drained");
  const benchCpu = process.cpuUsage(benchCpuBefore);
  const backendsAfter = await backendCpuMs();
  const wallMs = Number(drained.at) - Number(queued.at);
  const runnerCpuMs = Number(drained.cpuMs) - Number(queued.cpuMs);
  const projectsCpuMs = (benchCpu.user + benchCpu.system) / 1000;
  const databaseCpuMs = sum([...backendsAfter].map(([pid, ms]) => ms - (backendsBefore.get(pid) ?? 0)));
  const cpuMs = runnerCpuMs + projectsCpuMs + databaseCpuMs;
  const waiting = wallMs > MAX_WALL_PER_CPU * cpuMs;
  const slow = wallMs > TARGET_REMATCH_MS;
  failed ||= waiting || slow;
  rematchRows.push({
    run,
    condition: CONDITION,
    "package names queued": Number(queued.packages),
    "findings before": olderFindings,
    "re-match ms": wallMs,
    "runner CPU ms": runnerCpuMs.toFixed(0),
    "identity+projects CPU ms": projectsCpuMs.toFixed(0),
    "PostgreSQL CPU ms": databaseCpuMs.toFixed(0),
    "wall / CPU": (wallMs / cpuMs).toFixed(2),
    "runner peak RSS MiB": Number(drained.peakRssMiB).toFixed(0),
    [`≤ ${TARGET_REMATCH_MS / 1000} s`]: slow ? "MISSED" : "met",
    [`wall ≤ ${MAX_WALL_PER_CPU}× CPU`]: waiting ? "WAITED" : "met",
  });
  // Where the time went: the runner's stages summed over its batches' lines (the drain's own line may come after
  // the queue is empty, once EPSS and KEV scores are refreshed), projects' over its calls.
  const batches = current.stageLines.filter((o) => o.msg === "re-match batch recorded");
  const stagesOf = (o: Record<string, unknown> | undefined) => (o?.stageMs ?? {}) as Record<string, number>;
  const batchEnd = (o: Record<string, unknown> | undefined) => (o ? Date.parse(String(o.time)) : NaN);
  const runnerStages: Record<string, number> = {};
  for (const b of batches)
    for (const [k, v] of Object.entries(stagesOf(b)))
      if (k !== "restamp" && k !== "matcher") runnerStages[k] = (runnerStages[k] ?? 0) + v;
  const calls = refreshCalls.slice(callsBefore);
  const projectStages = (key: string) => sum(calls.map((c) => (c.stageMs as Record<string, number>)[key] ?? 0));
  const firstTaken = batchEnd(batches[0]) - sum(Object.values(stagesOf(batches[0])));
  stageRows.push({
    run,
    "queued to first batch": firstTaken - Number(queued.at),
    ...runnerStages,
    batches: batches.length,
    calls: calls.length,
    "projects: vulnerabilities": projectStages("vulnerabilities"),
    findings: projectStages("findings"),
    severity: projectStages("severity"),
    figures: projectStages("figures"),
    events: projectStages("events"),
    "projects: commit": projectStages("commit"),
    "last batch to seen empty": Number(drained.at) - batchEnd(batches.at(-1)),
  });
  // Each run as it ends (the tables come at the end): a long bench shows where it stands.
  console.error(JSON.stringify({ ...rematchRows.at(-1), ...stageRows.at(-1) }));
}

// The last runner's scan events (progress frames carry when each stage was reached): where a scan's time goes.
runner ??= startRunner();
if (PROJECTS === 0) started0 = await runner.next("started");
const runnerKafka = createKafka({
  brokers: testServers().kafkaBrokers,
  clientId: "bench-rematch",
  logger: createLogger("bench-rematch", "ERROR"),
  topicPrefix: `${runner.schema}.`,
});
// Made before subscribing: a consumer that joins before its topic exists sees it only at a metadata refresh.
await ensureTopics(runnerKafka, [TOPICS.scanEvents]);
const scanEvents = await EventReader.start(runnerKafka, TOPICS.scanEvents);
const count = async (projectId: string) =>
  Number(
    (
      await projects
        .client(VulnerabilityFindingService)
        .listVulnerabilityFindings({ projectId, anchor: {}, limit: 1 }, await admin())
    ).total,
  );

/** Stored upload to the finding list's total: the scan job published, the list polled every 20 ms. */
async function scanToFindings(
  n: number,
  seed: number,
): Promise<{
  ms: number;
  total: number;
  expected: number;
  stages: Record<string, number>;
  succeededMs: number;
  pendingLicenses: number;
}> {
  const { bytes, expected } = vulnerableSbom(full, n, seed);
  const projectId = await project(PROJECTS + seed);
  const started = Date.now();
  const upload = await store.put(`uploads/${projectId}/${randomUUID()}`, bytesSource(bytes), {
    maxBytes: 64 * 2 ** 20,
  });
  // Onto the runner's manual lane, as the scan-orchestrator's relay publishes a job.
  const scanId = randomUUID();
  await runnerFixtures.publishSbomJob(runnerKafka, {
    scanId,
    projectId,
    sbom: { key: upload.key, sizeBytes: BigInt(upload.sizeBytes), sha256: upload.sha256 },
  });
  let total = 0;
  while (Date.now() - started < 300_000) {
    total = await count(projectId);
    if (total >= expected && total > 0) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  const listed = Date.now();
  const { stages, succeededMs, pendingLicenses } = await stagesOf(scanId, started, listed);
  return { ms: listed - started, total, expected, stages, succeededMs, pendingLicenses };
}

/** Milliseconds between the stages the runner reported (progress frames' occurred_at), upload stored to listed. */
async function stagesOf(
  scanId: string,
  started: number,
  listed: number,
): Promise<{ stages: Record<string, number>; succeededMs: number; pendingLicenses: number }> {
  // The outcome waits for the registry lookups (license, currency) at most REGISTRY_LOOKUP_WAIT_SECONDS.
  const [finished] = await scanEvents.waitFor(ScanAttemptFinishedSchema, (e) => e.scanId === scanId, 1, 600_000);
  const frames = await scanEvents.waitFor(ScanProgressSchema, (e) => e.scanId === scanId && !e.heartbeat);
  const msOf = (t: { seconds: bigint; nanos: number } | undefined) =>
    t ? Number(t.seconds) * 1000 + Math.round(t.nanos / 1e6) : NaN;
  const at = (percent: number) => msOf(frames.find((x) => x.percent === percent)?.occurredAt);
  const end = msOf(finished?.occurredAt);
  // The log lines written when the findings were recorded and when the license lookup ended (written before the
  // outcome, on the scan's partition: already read).
  const lines = await scanEvents.waitFor(ScanLogLineSchema, (l) => l.scanId === scanId, 0);
  const lineAt = (stage: string, prefix: string) =>
    msOf(lines.find((l) => l.stage === stage && l.line.startsWith(prefix))?.occurredAt);
  const recorded = lineAt("matching", "Recorded ");
  const licensed = lineAt("licenses", "License lookup:");
  // The SBOM stages of docs/scanner-runner.md: started 0, fetched 20, read 50, stored 70, ingested 95, matched 99.
  if (finished?.outcome !== "succeeded")
    console.error(`scan ${scanId}: ${finished?.outcome ?? "no outcome"} ${finished?.errorMessage ?? ""}`);
  const stages = {
    "to started": at(0) - started,
    fetch: at(20) - at(0),
    read: at(50) - at(20),
    artefact: at(70) - at(50),
    ingest: at(95) - at(70),
    // Matching runs beside the ingestion; the findings are recorded once both are done (RecordScanMatches), then
    // listed (the list polled every 20 ms).
    "record findings": recorded - at(95),
    "recorded to listed": listed - recorded,
    // After the findings: the registry license lookup (when on), the component states, the attempt's outcome.
    "license lookup": licensed - recorded,
    "to finished": end - (Number.isNaN(licensed) ? recorded : licensed),
  };
  return { stages, succeededMs: end - started, pendingLicenses: finished?.pendingLicenseCount ?? NaN };
}

const small = SBOM_COMPONENTS > 0 ? await scanToFindings(SBOM_COMPONENTS, 1) : null;
runner.send("memory");
const smallMemory = await runner.next("memory");
// The large document: the runner's memory through a 50,000-component scan (no time target).
const large = SBOM_LARGE > 0 ? await scanToFindings(SBOM_LARGE, 2) : null;
runner.send("memory");
const memory = await runner.next("memory");
// The reader stops before the runner, whose close deletes the topics it reads.
await scanEvents.stop();
runner.send("stop");
await runner.exited;
await busy?.stop();

if (rematchRows.length > 0) {
  printTable(
    `Full re-match after an advisory refresh (${PROJECTS} projects × ${COMPONENTS} components, ${CONDITION}; target ≤ ${TARGET_REMATCH_MS / 1000} s, wall ≤ ${MAX_WALL_PER_CPU}× CPU)`,
    rematchRows,
  );
  printTable(
    "Where each re-match's time goes (ms; the runner's stages summed over its batches, projects' over its calls)",
    stageRows,
  );
}
if (small) {
  printTable(`SBOM, stored upload to findings queryable (target for 10,000 ≤ ${TARGET_SBOM_MS / 1000} s)`, [
    {
      components: SBOM_COMPONENTS,
      "findings expected": small.expected,
      "findings listed": small.total,
      ms: small.ms,
      "≤ 5 s": small.ms <= TARGET_SBOM_MS && small.total === small.expected ? "met" : "MISSED",
    },
    ...(large
      ? [
          {
            components: SBOM_LARGE,
            "findings expected": large.expected,
            "findings listed": large.total,
            ms: large.ms,
            "≤ 5 s": "(no target)",
          },
        ]
      : []),
  ]);
  printTable(
    `${SBOM_COMPONENTS}-component SBOM, stored upload to scan succeeded (registry lookups: ${REGISTRY_MODE})`,
    [
      {
        registry:
          REGISTRY_MODE === "slow"
            ? `answers after ${process.env.BENCH_REGISTRY_DELAY_MS ?? 30} ms`
            : REGISTRY_MODE === "silent"
              ? "never answers"
              : REGISTRY_MODE === "closed"
                ? "closed port"
                : "lookups off",
        "findings listed ms": small.ms,
        "succeeded ms": small.succeededMs,
        "licenses pending at success": small.pendingLicenses,
      },
    ],
  );
  printTable(
    "Where a scan's time goes (ms, from the runner's progress frames)",
    [small, ...(large ? [large] : [])].map((r, i) => ({
      components: i === 0 ? SBOM_COMPONENTS : SBOM_LARGE,
      ...r.stages,
    })),
  );
}
printTable(`scanner-runner resident memory (MiB; target ≤ ${TARGET_RSS_MIB})`, [
  {
    "RSS when started": Number(started0.rssMiB).toFixed(0),
    "peak, re-match": Number(drained.peakRssMiB).toFixed(0),
    [`peak, ${SBOM_COMPONENTS} to findings`]: small ? Number(smallMemory.peakRssMiB).toFixed(0) : "-",
    // Issue 8 names the re-match and the 10,000; the 50,000 shows how the peak grows (issue 6 asks it said).
    "≤ 300 MB (start, re-match, 10,000)":
      Math.max(Number(started0.rssMiB), Number(drained.peakRssMiB), Number(smallMemory.peakRssMiB)) * 1.048576 <=
      TARGET_RSS_MIB
        ? "met"
        : "MISSED",
    ...(large ? { [`peak, ${SBOM_LARGE} to findings`]: Number(memory.peakRssMiB).toFixed(0) } : {}),
    "VmHWM at the end (whole run)": Number(memory.hwmMiB).toFixed(0),
  },
]);
// The runner's schema and topics went with its close() in its process, identity's and projects' go with theirs.
await registry.close();
await projects.close();
await policy.close();
await identity.close();
await rm(dir, { recursive: true, force: true });
if (failed)
  console.error(
    `re-match: over ${TARGET_REMATCH_MS / 1000} s or waiting (wall > ${MAX_WALL_PER_CPU}× CPU): see the rows marked`,
  );
process.exit(failed ? 1 : 0);
