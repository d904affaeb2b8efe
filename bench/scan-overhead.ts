// A source scan's wall time through the portal against cdxgen alone on the same repository (issue 7: portal overhead
// at most 20 %), without a portal (real PostgreSQL, Kafka and Redis, as the tests use them; run as
// `node bench/scan-overhead.ts` with scripts/env.sh's environment, or through bench/run.sh):
// - portal: identity, projects, the scan-orchestrator and the scanner-runner run in this process; each real project
//   of shared/data/manifests is served by a git server on loopback (git http-backend). The clock runs from the
//   scan's creation (ScanService.CreateScan, what the gateway's POST /v1/projects/{id}/scans calls) until GetScan,
//   polled every 20 ms, says succeeded: queued, job through Kafka, clone, cdxgen, SBOM read, inventory artefact,
//   ingest, matching.
// - cdxgen alone: the same files in a fresh workspace, cdxgen started with the flags, sandbox and environment a scan
//   uses (the scanner-runner's sandboxTree fixture), until its SBOM is read back.
// Runs alternate (portal, alone) so load drift on a shared machine hits both; one warm-up pair per project is not
// counted; medians of BENCH_RUNS (default 5). The runner starts the next scan's cdxgen ahead after each source scan
// (docs/source-scans.md, "cdxgen started ahead"; BENCH_PRESTART=false turns it off): each timed run waits until that
// process has loaded and gone idle, so its loading never shares the cores with a run being timed.
import { randomUUID } from "node:crypto";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { DirectoryService } from "@sca/proto/sca/identity/v1/directory_pb.ts";
import { ProjectService } from "@sca/proto/sca/projects/v1/projects_pb.ts";
import { ScanService } from "@sca/proto/sca/scanorchestrator/v1/scans_pb.ts";
import { timestampMs } from "@bufbuild/protobuf/wkt";
import { TOPICS } from "@sca/kafka";
import { ScanProgressSchema } from "@sca/proto/sca/events/v1/scans_pb.ts";
import { callAs, EventReader, fixturesOf, sharedDir, startGitServer, startService, uniqueName } from "@sca/testkit";
import { printTable } from "./table.ts";

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const PROJECTS = (process.env.BENCH_SCAN_PROJECTS ?? "nodegoat,gh-cli,flask,pygoat,ripgrep,spring-petclinic").split(
  ",",
);
const TARGET_OVERHEAD = 0.2;
const MANIFESTS = join(sharedDir(), "data/manifests");

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

const dir = await mkdtemp(join(tmpdir(), "sca-bench-scan-overhead-"));
const store = { ARTEFACT_DIR: dir };
const KAFKA_TOPIC_PREFIX = `${uniqueName("bench_scan")}.`;
const git = await startGitServer();
const identity = await startService("identity", {
  env: { PASSWORD_RESET_BASE_URL: "https://portal.example.com/reset-password", KAFKA_TOPIC_PREFIX },
});
const projects = await startService("projects", {
  env: { IDENTITY_RPC_URL: identity.url!, KAFKA_TOPIC_PREFIX, ...store },
});
const scans = await startService("scan-orchestrator", {
  env: { PROJECTS_RPC_URL: projects.url!, KAFKA_TOPIC_PREFIX, ...store, SCAN_JOB_MAX_ATTEMPTS: "1" },
});
const PRESTART = process.env.BENCH_PRESTART !== "false";
const runner = await startService("scanner-runner", {
  env: {
    PROJECTS_RPC_URL: projects.url!,
    KAFKA_TOPIC_PREFIX,
    ...store,
    SCAN_GIT_ALLOWED_HOSTS: "localhost",
    CDXGEN_PRESTART_ENABLED: String(PRESTART),
  },
});

/** CPU ticks of the prestarted cdxgen processes (their command line names the gate module), by pid. */
async function prestartTicks(): Promise<Map<string, number>> {
  const ticks = new Map<string, number>();
  for (const pid of await readdir("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (!(await readFile(`/proc/${pid}/cmdline`, "utf8")).includes("cdxgen-prestart-gate")) continue;
      const stat = await readFile(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ticks.set(pid, Number(fields[11]) + Number(fields[12])); // utime + stime
    } catch {
      // gone meanwhile
    }
  }
  return ticks;
}

/** Until the runner's prestarted cdxgen (if one is coming) has loaded and stopped using the CPU. */
async function prestartSettled(): Promise<void> {
  if (!PRESTART) return;
  await delay(400); // it starts 250 ms after the scan's outcome
  let before = await prestartTicks();
  for (let i = 0; i < 100; i++) {
    await delay(300);
    const now = await prestartTicks();
    // None after 2 s: the runner has not run a source scan yet (the warm-up).
    if (now.size === 0 && i >= 6) return;
    if (now.size > 0 && [...now].every(([pid, t]) => before.get(pid) === t)) return;
    before = now;
  }
}

const events = await EventReader.start(runner.kafka!, TOPICS.scanEvents);
const slug = `bench-${randomUUID().slice(0, 8)}`;
const { team } = await identity
  .client(DirectoryService)
  .createTeam({ name: slug, slug }, await callAs.superAdmin(randomUUID()));
const developer = () =>
  callAs.user(randomUUID(), {
    memberships: [{ team_id: team!.id, organization_id: team!.organizationId!, role: "developer" }],
  });

async function files(name: string): Promise<Record<string, Buffer>> {
  const out: Record<string, Buffer> = {};
  for (const file of await readdir(join(MANIFESTS, name))) out[file] = await readFile(join(MANIFESTS, name, file));
  return out;
}

/** Where a portal run's time went, from the scan's progress frames (their occurred_at: when the worker got there). */
type Stages = Record<string, number>;
const stageRuns: Record<string, Stages[]> = {};

async function stagesOf(scanId: string, started: number, ended: number): Promise<Stages> {
  const frames = (await events.waitFor(ScanProgressSchema, (p) => p.scanId === scanId && !p.heartbeat, 1)).map((p) => ({
    step: `${p.step} ${p.percent}`,
    at: timestampMs(p.occurredAt!) - performance.timeOrigin,
  }));
  if (process.env.BENCH_FRAMES)
    console.error(
      frames.map((f) => `${f.step} +${Math.round(f.at - started)}`).join(", "),
      `seen +${Math.round(ended - started)}`,
    );
  const at = (step: string) => frames.find((f) => f.step.startsWith(step))?.at ?? NaN;
  const last = Math.max(...frames.map((f) => f.at));
  return {
    queued: at("sbom 0") - started,
    clone: at("cdxgen") - at("clone"),
    cdxgen: at("sbom 50") - at("cdxgen"),
    "read+ingest+match": last - at("sbom 50"),
    // Its first part: the scancode stage reported (a source scan's "scancode" frame) until the SBOM is read.
    "of which scancode": (frames.findLast((f) => f.step === "sbom 50")?.at ?? NaN) - at("scancode"),
    "last frame to seen": ended - last,
  };
}

/** One scan through the portal: ms from CreateScan to succeeded. */
async function portalRun(projectId: string, name: string): Promise<number> {
  const client = scans.client(ScanService);
  const started = performance.now();
  const { scan } = await client.createScan({ projectId, kind: "source" }, await developer());
  for (;;) {
    const { scan: now } = await client.getScan({ scanId: scan!.id }, await developer());
    if (now!.status === "succeeded") {
      const ended = performance.now();
      (stageRuns[name] ??= []).push(await stagesOf(scan!.id, started, ended));
      return ended - started;
    }
    if (now!.status === "failed" || now!.status === "cancelled")
      throw new Error(`scan ${now!.status}: ${now!.errorMessage}`);
    await delay(20);
  }
}

/** cdxgen alone, as a scan starts it, on the same files: ms until its SBOM is read back. */
async function aloneRun(name: string): Promise<number> {
  const tree = await (await fixturesOf("scanner-runner")).sandboxTree(await files(name));
  try {
    const started = performance.now();
    await tree.cdxgen({ bin: process.env.CDXGEN_BIN ?? "", timeoutMs: 600_000, memoryMb: 2048 });
    return performance.now() - started;
  } finally {
    await tree.remove();
  }
}

const rows: Record<string, string | number>[] = [];
try {
  for (const name of PROJECTS) {
    await git.repo(name, await files(name));
    const { project } = await projects.client(ProjectService).createProject(
      {
        project: {
          teamId: team!.id,
          name: `Overhead ${name}`,
          slug: `${slug}-${name}`,
          gitUrl: `http://localhost:${git.port}/${name}.git`,
        },
      },
      await developer(),
    );
    const portal: number[] = [];
    const alone: number[] = [];
    for (let i = 0; i <= RUNS; i++) {
      await prestartSettled();
      const p = await portalRun(project!.id, name);
      await prestartSettled();
      const a = await aloneRun(name);
      if (i === 0) {
        stageRuns[name] = []; // the warm-up's stages are not counted either
        continue;
      }
      portal.push(p);
      alone.push(a);
    }
    const mp = median(portal);
    const ma = median(alone);
    const overhead = (mp - ma) / ma;
    rows.push({
      project: name,
      runs: RUNS,
      "cdxgen alone ms (median)": Math.round(ma),
      "portal ms (median)": Math.round(mp),
      "overhead ms": Math.round(mp - ma),
      overhead: `${(overhead * 100).toFixed(1)} %`,
      "≤ 20 %": overhead <= TARGET_OVERHEAD ? "yes" : "NO",
    });
    console.error(`${name}: portal ${portal.map(Math.round).join(", ")}; alone ${alone.map(Math.round).join(", ")}`);
  }
  printTable("Source scan wall time through the portal against cdxgen alone (same repository, same flags)", rows);
  printTable(
    "Where the portal's time goes (ms, medians of the counted runs; from the scan's progress frames)",
    Object.entries(stageRuns).map(([project, runs]) => ({
      project,
      ...Object.fromEntries(Object.keys(runs[0] ?? {}).map((k) => [k, Math.round(median(runs.map((r) => r[k]!)))])),
    })),
  );
} finally {
  await events.stop();
  await runner.close();
  await scans.close();
  await projects.close();
  await identity.close();
  await git.stop();
  await rm(dir, { recursive: true, force: true });
}
