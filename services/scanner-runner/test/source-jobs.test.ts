// Source jobs through a real scanner-runner whose cdxgen is a stand-in that misbehaves on purpose (CDXGEN_BIN names
// a script that hangs with a background child, or floods its output), run exactly as cdxgen is (node's permission
// model, the sandbox user, the scrubbed environment): the job times out, is cancelled, or is cut, and its workspace
// (SCAN_WORK_DIR) is gone afterwards with every process it started.
import { readdir } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { TOPICS } from "@sca/kafka";
import { ScanAttemptFinishedSchema, ScanLogLineSchema, ScanProgressSchema } from "@sca/proto/sca/events/v1/scans_pb.ts";
import { closeTogether, EventReader, startService, zipOf, type TestService } from "@sca/testkit";
import { service } from "../src/service.ts";
import {
  artefactDirectory,
  eventually,
  jobApplied,
  makeProject,
  publishJobs,
  publishScanState,
  scanJob,
  upload,
} from "./support/scan-jobs.ts";
import { fakeCdxgen, processRunning, type FakeCdxgen } from "./support/fake-cdxgen.ts";

const FAKE_CDXGEN = `
const { spawn } = require("node:child_process");
const { readFileSync, writeFileSync } = require("node:fs");
const args = process.argv.slice(2);
const tree = args[args.length - 1];
const output = args[args.indexOf("-o") + 1];
const mode = readFileSync(tree + "/mode.txt", "utf8").trim();
if (mode === "hang") {
  const child = spawn("sleep", ["300"], { stdio: "ignore" });
  console.log("background pid " + child.pid);
  console.error("environment keys " + Object.keys(process.env).sort().join(","));
  setInterval(() => {}, 1000);
} else {
  // A hundred thousand lines in one write: a line a write was 100,000 pipe writes, seconds of CPU on a loaded machine,
  // which ran into CDXGEN_TIMEOUT_SECONDS (6 s, for the hanging tool) before the flood was over.
  process.stdout.write(("x".repeat(99) + "\\n").repeat(100000));
  writeFileSync(output, JSON.stringify({
    bomFormat: "CycloneDX", specVersion: "1.6", version: 1,
    components: [{ type: "library", name: "left-pad", version: "1.3.0", purl: "pkg:npm/left-pad@1.3.0" }],
  }));
}
`;

let artefacts: Awaited<ReturnType<typeof artefactDirectory>>;
let fake: FakeCdxgen;
let identity: TestService;
let projects: TestService;
let runner: TestService;
let events: EventReader;

beforeAll(async () => {
  artefacts = await artefactDirectory();
  fake = await fakeCdxgen(FAKE_CDXGEN);
  identity = await startService("identity", {
    env: { PASSWORD_RESET_BASE_URL: "https://portal.example.com/reset-password" },
  });
  projects = await startService("projects", { env: { IDENTITY_RPC_URL: identity.url!, ARTEFACT_DIR: artefacts.dir } });
  runner = await startService(service, {
    env: {
      ARTEFACT_DIR: artefacts.dir,
      PROJECTS_RPC_URL: projects.url!,
      CDXGEN_BIN: fake.bin,
      CDXGEN_TIMEOUT_SECONDS: "6",
      // Each job's own workspace gone is what is checked here; the prestart's are cdxgen-prestart.test.ts's.
      CDXGEN_PRESTART_ENABLED: "false",
      SCAN_WORK_DIR: fake.workDir,
      SCAN_TOOL_OUTPUT_MAX_BYTES: String(100 * 1024),
    },
  });
  events = await EventReader.start(runner.kafka!, TOPICS.scanEvents);
}, 90_000);

afterAll(async () => {
  await events?.stop();
  await closeTogether([runner, projects, identity]);
  await artefacts?.remove();
  await fake?.remove();
}, 60_000);

async function sourceJob(mode: string, projectId?: string) {
  const archive = zipOf([{ name: "mode.txt", data: mode }]);
  const job = scanJob({ lane: "manual", kind: "source", ...(projectId ? { projectId } : {}) });
  job.sourceArchive = await upload(artefacts.store, job.projectId, archive);
  return job;
}

async function backgroundPid(scanId: string): Promise<number> {
  const [line] = await events.waitFor(
    ScanLogLineSchema,
    (l) => l.scanId === scanId && l.stage === "cdxgen" && l.line.startsWith("background pid"),
  );
  return Number(line!.line.split(" ").pop());
}

describe("source jobs with a misbehaving tool", () => {
  it("fails a tool that hangs at CDXGEN_TIMEOUT_SECONDS, killing what it started and removing the workspace", async () => {
    const job = await sourceJob("hang");
    await publishJobs(runner.kafka!, "manual", [job]);
    const pid = await backgroundPid(job.scanId);
    expect(await processRunning(pid)).toBe(true);
    const [finished] = await events.waitFor(ScanAttemptFinishedSchema, (e) => e.scanId === job.scanId, 1, 30_000);
    expect(finished).toMatchObject({
      outcome: "failed",
      retryable: false,
      errorMessage: "cdxgen did not finish within CDXGEN_TIMEOUT_SECONDS (6 s); it was stopped.",
    });
    expect(await processRunning(pid)).toBe(false);
    expect(await readdir(fake.workDir)).toEqual([]);
    // The tool saw the allow-listed environment, on stderr, apart from stdout.
    const [env] = await events.waitFor(ScanLogLineSchema, (l) => l.scanId === job.scanId && l.stream === "stderr");
    expect(env!.line).toMatch(/^environment keys /);
    expect(env!.line).not.toMatch(/DATABASE_URL|SECRET_KEY|KAFKA|REDIS/);
    const steps = (await events.waitFor(ScanProgressSchema, (p) => p.scanId === job.scanId && !p.heartbeat, 0)).map(
      (p) => p.step,
    );
    expect(steps).toEqual(["sbom", "extract", "cdxgen"]);
  }, 60_000);

  it("stops a cancelled job mid-tool: the process group is killed, no outcome, no workspace", async () => {
    const job = await sourceJob("hang");
    await publishJobs(runner.kafka!, "manual", [job]);
    const pid = await backgroundPid(job.scanId);
    const cancelledAt = Date.now();
    await publishScanState(runner.kafka!, job, "cancelled");
    await eventually(() => jobApplied(runner.orm, runner.kafka!, job), "the cancelled job ended");
    expect(Date.now() - cancelledAt).toBeLessThan(5_000);
    expect(await processRunning(pid)).toBe(false);
    expect(await readdir(fake.workDir)).toEqual([]);
    expect(events.seen.filter((r) => r.key === job.scanId && r.type === ScanAttemptFinishedSchema.typeName)).toEqual(
      [],
    );
  }, 60_000);

  it("cuts a flood of output at SCAN_TOOL_OUTPUT_MAX_BYTES and still ingests what the tool wrote", async () => {
    const job = await sourceJob("flood", await makeProject(identity, projects));
    await publishJobs(runner.kafka!, "manual", [job]);
    // The scan goes on to the scancode stage over the tree (docs/scancode.md), seconds of scancode's start-up.
    const [finished] = await events.waitFor(ScanAttemptFinishedSchema, (e) => e.scanId === job.scanId, 1, 90_000);
    expect(finished).toMatchObject({ outcome: "succeeded", componentCount: 1 });
    const lines = await events.waitFor(ScanLogLineSchema, (l) => l.scanId === job.scanId && l.stage === "cdxgen", 0);
    const flood = lines.filter((l) => l.stream === "stdout" && l.line.startsWith("xxx"));
    // 100 KiB of 100-byte lines: about a thousand of the hundred thousand written.
    expect(flood.length).toBeGreaterThan(900);
    expect(flood.length).toBeLessThanOrEqual(1024);
    expect(
      lines.some((l) => l.stream === "stderr" && /more than SCAN_TOOL_OUTPUT_MAX_BYTES on stdout/.test(l.line)),
    ).toBe(true);
    expect(await readdir(fake.workDir)).toEqual([]);
  }, 120_000);
});
