import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createHash } from "node:crypto";
import { readFile, rm, writeFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { TOPICS } from "@sca/kafka";
import {
  ScanAttemptFinishedSchema,
  ScanLogLineSchema,
  ScanProgressSchema,
  type ScanJob,
} from "@sca/proto/sca/events/v1/scans_pb.ts";
import { InventoryService } from "@sca/proto/sca/projects/v1/inventory_pb.ts";
import { closeTogether, callAs, EventReader, startService, uniqueName, type TestService } from "@sca/testkit";
import { inventoryArtefactKey } from "../src/events/scan-job-handler.ts";
import { KnownScanState } from "../src/store/entities/known-scan-state.ts";
import { service } from "../src/service.ts";
import {
  artefactDirectory,
  eventually,
  jobApplied,
  makeProject,
  startWorkerOn,
  publishJobs,
  publishScanState,
  scanJob,
  sharedSbom,
  upload,
} from "./support/scan-jobs.ts";

let artefacts: Awaited<ReturnType<typeof artefactDirectory>>;
let identity: TestService;
let projects: TestService;
let runner: TestService;
let events: EventReader;

beforeAll(async () => {
  artefacts = await artefactDirectory();
  identity = await startService("identity", {
    env: { PASSWORD_RESET_BASE_URL: "https://portal.example.com/reset-password" },
  });
  projects = await startService("projects", { env: { IDENTITY_RPC_URL: identity.url!, ARTEFACT_DIR: artefacts.dir } });
  runner = await startService(service, { env: { ARTEFACT_DIR: artefacts.dir, PROJECTS_RPC_URL: projects.url! } });
  events = await EventReader.start(runner.kafka!, TOPICS.scanEvents);
}, 90_000);

afterAll(async () => {
  await events?.stop();
  await closeTogether([runner, projects, identity]);
  await artefacts?.remove();
}, 120_000);

/** Asks projects to ingest the scan's inventory again: it answers what it holds for the scan, writing nothing. */
async function storedInventory(job: ScanJob) {
  const key = inventoryArtefactKey(job.scanId);
  const info = await artefacts.store.stat(key);
  const bytes = await readFile(artefacts.store.pathOf(key));
  return projects.client(InventoryService).ingestInventory(
    {
      scanId: job.scanId,
      projectId: job.projectId,
      attempt: job.attempt,
      inventory: { key, sizeBytes: BigInt(info!.sizeBytes), sha256: createHash("sha256").update(bytes).digest("hex") },
    },
    await callAs.service("scanner-runner"),
  );
}

const finishedOf = async (job: ScanJob) =>
  (await events.waitFor(ScanAttemptFinishedSchema, (e) => e.scanId === job.scanId))[0]!;
/** The progress frames of the job's scan seen so far. */
const progressOf = (job: ScanJob) => events.waitFor(ScanProgressSchema, (e) => e.scanId === job.scanId, 0);

async function sbomJob(bytes: Uint8Array, projectId: string = randomUUID()): Promise<ScanJob> {
  return scanJob({ lane: "manual", projectId, sbom: await upload(artefacts.store, projectId, bytes) });
}

describe("scanner-runner runs SBOM scan jobs", () => {
  it("reads a real SBOM, has projects store its inventory and reports progress, log lines and success", async () => {
    const projectId = await makeProject(identity, projects);
    const job = await sbomJob(await sharedSbom("cyclonedx/cern-lhc-vdm-editor-e564943.cdx-1.2.json"), projectId);
    await publishJobs(runner.kafka!, "manual", [job]);

    const finished = await finishedOf(job);
    expect(finished).toMatchObject({
      attempt: 1,
      outcome: "succeeded",
      componentCount: 43,
      documentRelease: "0.0.1",
      errorMessage: "",
    });
    const progress = (await progressOf(job)).filter((p) => !p.heartbeat);
    expect(progress[0]).toMatchObject({ step: "sbom", percent: 0, attempt: 1 });
    const percents = progress.map((p) => p.percent);
    expect(percents).toEqual([...percents].sort((a, b) => a - b));
    const lines = await events.waitFor(ScanLogLineSchema, (l) => l.scanId === job.scanId, 2);
    expect(lines.map((l) => l.lineNumber)).toEqual(lines.map((_, i) => i + 1));
    expect(lines.map((l) => l.line).join("\n")).toMatch(/cyclonedx-json 1\.2: 43 component entries, 43 distinct/);
    expect(await storedInventory(job)).toMatchObject({ componentCount: 43, alreadyIngested: true });
    // The matching stage (docs/vulnerability-database.md): the vendored snapshot holds one advisory for this SBOM.
    expect(progress.at(-1)).toMatchObject({ step: "matching", percent: 99 });
    const matching = await events.waitFor(
      ScanLogLineSchema,
      (l) => l.scanId === job.scanId && l.stage === "matching",
      2,
    );
    expect(matching.map((l) => l.line).join("\n")).toMatch(
      /Matched 43 distinct package versions against the vulnerability database \(version [0-9a-f]{32}\): 1 affected, 1 vulnerabilities\./,
    );
    expect(matching.map((l) => l.line).join("\n")).toMatch(/^Recorded 1 vulnerability findings\.$/m);
  });

  it("ends a malformed SBOM failed, not retryable, with the reader's message", async () => {
    const whole = await sharedSbom("cyclonedx/laravel-7.12.0.cdx-1.4.json");
    const job = await sbomJob(whole.subarray(0, whole.length / 2));
    await publishJobs(runner.kafka!, "manual", [job]);

    const finished = await finishedOf(job);
    expect(finished).toMatchObject({ outcome: "failed", retryable: false, componentCount: 0 });
    expect(finished.errorMessage).toMatch(/^The JSON document is malformed or truncated( \(position \d+\))?\.$/);
  });

  it("refuses a job of a kind it does not know, and a container job naming no image, for good", async () => {
    const unknown = scanJob({ lane: "manual", kind: "ftp" });
    const imageless = scanJob({ lane: "manual", kind: "container" });
    await publishJobs(runner.kafka!, "manual", [unknown, imageless]);
    expect(await finishedOf(unknown)).toMatchObject({
      outcome: "failed",
      retryable: false,
      errorMessage:
        'This scanner-runner build does not run scans of kind "ftp"; it scans uploaded SBOMs, source trees and container images (kinds sbom, source, container).',
    });
    expect(await finishedOf(imageless)).toMatchObject({
      outcome: "failed",
      retryable: false,
      errorMessage: "The container scan names no image; give an image reference such as registry/team/app:1.2.",
    });
  });

  it("fails for good an upload that is gone or does not match its recorded SHA-256", async () => {
    const bytes = await sharedSbom("spdx/spdx-examples-appbomination.spdx-2.2.json");
    const altered = await sbomJob(bytes);
    altered.sbom!.sha256 = "0".repeat(64);
    const gone = await sbomJob(bytes);
    await artefacts.store.delete(gone.sbom!.key);
    await publishJobs(runner.kafka!, "manual", [altered, gone]);

    expect(await finishedOf(altered)).toMatchObject({
      outcome: "failed",
      retryable: false,
      errorMessage:
        "The uploaded SBOM does not match the size and SHA-256 recorded when it was uploaded; upload it again.",
    });
    expect(await finishedOf(gone)).toMatchObject({
      outcome: "failed",
      retryable: false,
      errorMessage: "The uploaded SBOM is no longer in the artefact store; upload it again.",
    });
  });

  it("skips a job whose scan moved on to a later attempt, reporting nothing", async () => {
    const job = await sbomJob(await sharedSbom("spdx/spdx-examples-appbomination.spdx-2.2.json"));
    await publishScanState(runner.kafka!, job, "queued", 2);
    await eventually(
      async () => (await runner.orm.em.fork().count(KnownScanState, { scanId: job.scanId, attempt: 2 })) > 0,
      "the worker heard of attempt 2",
    );
    await publishJobs(runner.kafka!, "manual", [job]);

    await eventually(() => jobApplied(runner.orm, runner.kafka!, job), "the stale job was consumed");
    expect(events.seen.filter((r) => r.key === job.scanId)).toEqual([]);
  });

  it("stops a job whose scan is cancelled while it runs, before its next stage, with no outcome", async () => {
    const bytes = await sharedSbom("cyclonedx/cern-lhc-vdm-editor-e564943.cdx-1.2.json");
    const job = await sbomJob(bytes);
    // The upload becomes a named pipe: the fetch stage waits on it until the test writes, so the cancel
    // lands while the job runs.
    const path = artefacts.store.pathOf(job.sbom!.key);
    await rm(path);
    execFileSync("mkfifo", [path]);
    await publishJobs(runner.kafka!, "manual", [job]);
    await events.waitFor(ScanProgressSchema, (p) => p.scanId === job.scanId);

    await publishScanState(runner.kafka!, job, "cancelled");
    await eventually(() => jobApplied(runner.orm, runner.kafka!, job), "the cancelled job ended");
    await writeFile(path, bytes).catch(() => undefined); // releases the pipe's reader; nobody reads it any more

    const progress = (await progressOf(job)).filter((p) => !p.heartbeat);
    expect(progress.map((p) => p.percent)).toEqual([0]);
    expect(events.seen.filter((r) => r.key === job.scanId && r.type === ScanAttemptFinishedSchema.typeName)).toEqual(
      [],
    );
  });

  it("leaves a job whose worker stopped mid-stage to the next worker: one inventory, one success", async () => {
    const projectId = await makeProject(identity, projects);
    const bytes = await sharedSbom("cyclonedx/laravel-7.12.0.cdx-1.4.json");
    const job = await sbomJob(bytes, projectId);
    const path = artefacts.store.pathOf(job.sbom!.key);
    await rm(path);
    execFileSync("mkfifo", [path]);
    // Two workers in turn over one schema and topic prefix, as a restarted pod would find them.
    const schema = uniqueName("scanner_runner");
    const first = await startWorkerOn(schema, artefacts.dir, projects.url!);
    const reader = await EventReader.start(first.kafka!, TOPICS.scanEvents);
    let second: TestService | undefined;
    try {
      await publishJobs(first.kafka!, "manual", [job]);
      await reader.waitFor(ScanProgressSchema, (p) => p.scanId === job.scanId);
      await first.close(); // while the job waits on its upload
      await writeFile(path, bytes).catch(() => undefined); // releases the pipe; the stopped worker reads nothing
      await rm(path);
      await writeFile(path, bytes);

      second = await startService(service, {
        schema,
        env: { ARTEFACT_DIR: artefacts.dir, PROJECTS_RPC_URL: projects.url! },
      });
      await eventually(() => jobApplied(second!.orm, second!.kafka!, job), "the second worker ran the job", 80_000);
      const finished = await reader.waitFor(ScanAttemptFinishedSchema, (f) => f.scanId === job.scanId);
      expect(new Set(finished.map((f) => f.eventId)).size).toBe(1);
      expect(finished[0]).toMatchObject({ outcome: "succeeded", componentCount: 62 });
      expect(await storedInventory(job)).toMatchObject({ componentCount: 62, alreadyIngested: true });
    } finally {
      await reader.stop();
      await (second ? second.close() : first.close().catch(() => undefined));
    }
  }, 120_000); // a worker stopped with a job in hand takes kafkajs some seconds to leave the group

  it("runs a manual job at once while a flood of automatic jobs waits in its own lane", async () => {
    const bytes = await sharedSbom("cyclonedx/juice-shop-via-npm-flat.cdx-1.4.json");
    const flood: ScanJob[] = [];
    for (let i = 0; i < 30; i++) {
      const projectId = randomUUID();
      flood.push(scanJob({ lane: "automatic", projectId, sbom: await upload(artefacts.store, projectId, bytes) }));
    }
    await publishJobs(runner.kafka!, "automatic", flood);
    await events.waitFor(ScanProgressSchema, (p) => p.scanId === flood[0]!.scanId || p.scanId === flood[29]!.scanId);
    const manual = await sbomJob(await sharedSbom("spdx/spdx-examples-appbomination.spdx-2.2.json"));
    await publishJobs(runner.kafka!, "manual", [manual]);

    await finishedOf(manual);
    const floodIds = new Set(flood.map((j) => j.scanId));
    const floodFinished = await events.waitFor(ScanAttemptFinishedSchema, (f) => floodIds.has(f.scanId), 0);
    expect(floodFinished.length).toBeLessThan(flood.length);
  });
});
