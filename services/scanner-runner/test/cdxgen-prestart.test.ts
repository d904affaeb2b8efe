// cdxgen started ahead of the next source scan (docs/source-scans.md, "cdxgen started ahead"), through a real
// scanner-runner whose cdxgen is a stand-in run exactly as cdxgen is (node's permission model, the gate module, the
// sandbox user, the scrubbed environment): after a source scan the next scan's cdxgen waits, loaded, in a workspace of
// its own; the next scan fetches its tree there and releases it; its clock starts then; a cancel kills it; nothing of
// it is left when the runner stops.
import { readdir } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { TOPICS } from "@sca/kafka";
import { ScanAttemptFinishedSchema, ScanLogLineSchema } from "@sca/proto/sca/events/v1/scans_pb.ts";
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

// Says when it was started (before the job: its pid and start time), then acts on the tree's mode.txt.
const FAKE_CDXGEN = `
const { spawn } = require("node:child_process");
const { readFileSync, writeFileSync } = require("node:fs");
const args = process.argv.slice(2);
const tree = args[args.length - 1];
const output = args[args.indexOf("-o") + 1];
const mode = readFileSync(tree + "/mode.txt", "utf8").trim();
console.log("pid " + process.pid + " up for " + Math.round(process.uptime() * 1000) + " ms");
console.error("environment keys " + Object.keys(process.env).sort().join(","));
if (mode === "hang") {
  const child = spawn("sleep", ["300"], { stdio: "ignore" });
  console.log("background pid " + child.pid);
  setInterval(() => {}, 1000);
} else {
  writeFileSync(output, JSON.stringify({
    bomFormat: "CycloneDX", specVersion: "1.6", version: 1,
    components: [{ type: "library", name: mode, version: "1.0.0", purl: "pkg:npm/" + mode + "@1.0.0" }],
  }));
}
`;

const TIMEOUT_SECONDS = 5;

let artefacts: Awaited<ReturnType<typeof artefactDirectory>>;
let fake: FakeCdxgen;
let identity: TestService;
let projects: TestService;
let runner: TestService | undefined;
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
      CDXGEN_TIMEOUT_SECONDS: String(TIMEOUT_SECONDS),
      CDXGEN_PRESTART_ENABLED: "true",
      SCAN_WORK_DIR: fake.workDir,
      // The scancode stage is not what this file is about: above the cap (the tree's two files) it is skipped.
      SCANCODE_MAX_FILES: "1",
    },
  });
  events = await EventReader.start(runner.kafka!, TOPICS.scanEvents);
}, 90_000);

afterAll(async () => {
  if (runner) {
    await events?.stop();
    await runner.close();
  }
  await closeTogether([projects, identity]);
  await artefacts?.remove();
  await fake?.remove();
}, 60_000);

async function sourceJob(mode: string, projectId?: string) {
  const job = scanJob({ lane: "manual", kind: "source", ...(projectId ? { projectId } : {}) });
  job.sourceArchive = await upload(
    artefacts.store,
    job.projectId,
    zipOf([
      { name: "mode.txt", data: mode },
      { name: "README", data: "a tree" },
    ]),
  );
  return job;
}

async function cdxgenLines(scanId: string) {
  const [finished] = await events.waitFor(ScanAttemptFinishedSchema, (e) => e.scanId === scanId, 1, 60_000);
  const lines = await events.waitFor(ScanLogLineSchema, (l) => l.scanId === scanId && l.stage === "cdxgen", 0);
  return { finished: finished!, lines: lines.map((l) => `${l.stream}: ${l.line}`) };
}

describe("cdxgen started ahead of the next source scan", () => {
  it("starts the next scan's cdxgen after a source scan; that scan releases it over its own tree", async () => {
    const projectId = await makeProject(identity, projects);
    const first = await sourceJob("first-pkg", projectId);
    await publishJobs(runner!.kafka!, "manual", [first]);
    const cold = await cdxgenLines(first.scanId);
    expect(cold.finished).toMatchObject({ outcome: "succeeded", componentCount: 1 });
    expect(cold.lines.some((l) => l.includes("started ahead"))).toBe(false);

    // One workspace waits, with its cdxgen loaded, for longer than CDXGEN_TIMEOUT_SECONDS: its clock has not started.
    await eventually(async () => (await readdir(fake.workDir)).length === 1, "a workspace made for the next scan");
    await new Promise((r) => setTimeout(r, (TIMEOUT_SECONDS + 1) * 1000));

    const second = await sourceJob("second-pkg", projectId);
    await publishJobs(runner!.kafka!, "manual", [second]);
    const warm = await cdxgenLines(second.scanId);
    expect(warm.finished).toMatchObject({ outcome: "succeeded", componentCount: 1 });
    expect(warm.lines[0]).toMatch(/^stdout: cdxgen was started ahead of this scan/);
    // Started before the scan (up for longer than it waited), with the allow-listed environment only.
    const up = Number(/up for (\d+) ms/.exec(warm.lines.find((l) => l.includes("up for"))!)![1]);
    expect(up).toBeGreaterThan(TIMEOUT_SECONDS * 1000);
    const env = warm.lines.find((l) => l.startsWith("stderr: environment keys "))!;
    expect(env).not.toMatch(/DATABASE_URL|SECRET_KEY|KAFKA|REDIS/);
    expect(env).toMatch(/CDXGEN_SECURE_MODE/);
    // What it read was the second scan's tree.
    const inventory = await projects.orm.em
      .fork()
      .getConnection()
      .execute<{ name: string }[]>("select name from inventory_components where scan_id = ?", [second.scanId]);
    expect(inventory.map((r) => r.name)).toEqual(["second-pkg"]);
  }, 120_000);

  it("leaves the waiting cdxgen for the next scan when a clone is refused before anything is fetched", async () => {
    await eventually(async () => (await readdir(fake.workDir)).length === 1, "a workspace made for the next scan");
    const waiting = await readdir(fake.workDir);
    // A project without a git_url: the clone is refused by its checks, before any workspace is taken.
    const projectId = await makeProject(identity, projects);
    const refused = scanJob({ lane: "manual", kind: "source", projectId });
    await publishJobs(runner!.kafka!, "manual", [refused]);
    const [finished] = await events.waitFor(ScanAttemptFinishedSchema, (e) => e.scanId === refused.scanId, 1, 60_000);
    expect(finished).toMatchObject({ outcome: "failed", retryable: false });
    expect(finished!.errorMessage).toMatch(/has no git_url/);
    // The same workspace (mkdtemp's name), so the same cdxgen: not let go and started again.
    expect(await readdir(fake.workDir)).toEqual(waiting);

    const next = await sourceJob("next-pkg", projectId);
    await publishJobs(runner!.kafka!, "manual", [next]);
    const warm = await cdxgenLines(next.scanId);
    expect(warm.finished).toMatchObject({ outcome: "succeeded", componentCount: 1 });
    expect(warm.lines[0]).toMatch(/^stdout: cdxgen was started ahead of this scan/);
  }, 120_000);

  it("times a prestarted cdxgen from its release, and a cancel kills its process group", async () => {
    await eventually(async () => (await readdir(fake.workDir)).length === 1, "a workspace made for the next scan");
    const hung = await sourceJob("hang");
    await publishJobs(runner!.kafka!, "manual", [hung]);
    const timedOut = await cdxgenLines(hung.scanId);
    expect(timedOut.finished).toMatchObject({
      outcome: "failed",
      errorMessage: `cdxgen did not finish within CDXGEN_TIMEOUT_SECONDS (${TIMEOUT_SECONDS} s); it was stopped.`,
    });
    expect(timedOut.lines[0]).toMatch(/started ahead/);
    const hungPid = Number(
      timedOut.lines
        .find((l) => l.includes("background pid"))!
        .split(" ")
        .pop(),
    );
    expect(await processRunning(hungPid)).toBe(false);

    await eventually(async () => (await readdir(fake.workDir)).length === 1, "a workspace made for the next scan");
    const cancelled = await sourceJob("hang");
    await publishJobs(runner!.kafka!, "manual", [cancelled]);
    const [line] = await events.waitFor(
      ScanLogLineSchema,
      (l) => l.scanId === cancelled.scanId && l.line.startsWith("background pid"),
    );
    const pid = Number(line!.line.split(" ").pop());
    await publishScanState(runner!.kafka!, cancelled, "cancelled");
    await eventually(() => jobApplied(runner!.orm, runner!.kafka!, cancelled), "the cancelled job ended");
    expect(await processRunning(pid)).toBe(false);
  }, 120_000);

  it("lets the waiting cdxgen and its workspace go when the runner stops", async () => {
    await eventually(async () => (await readdir(fake.workDir)).length === 1, "a workspace made for the next scan");
    const stopping = runner!;
    runner = undefined;
    await events.stop();
    await stopping.close();
    expect(await readdir(fake.workDir)).toEqual([]);
  }, 60_000);
});
