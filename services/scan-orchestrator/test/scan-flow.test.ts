// How scans move after creation, against a started scan-orchestrator (real PostgreSQL and Kafka): worker reports
// fed onto sca.scan.events, retries through the retry topics then the lane's dead-letter topic, the lease sweep,
// and a cancelled scan's late reports. Retry back-off is 1 s and the lease sweep runs every 300 ms here.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { randomUUID } from "node:crypto";
import { create, toBinary, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { deadLetterTopic, EVENT_ID, EVENT_TYPE, TOPICS, uuidv7 } from "@sca/kafka";
import {
  ScanAttemptFinishedSchema,
  ScanJobSchema,
  ScanProgressSchema,
  ScanStateChangedSchema,
} from "@sca/proto/sca/events/v1/scans_pb.ts";
import { ScanService } from "@sca/proto/sca/scanorchestrator/v1/scans_pb.ts";
import { callAs, EventReader, startService, type TestService } from "@sca/testkit";
import { service } from "../src/service.ts";
import { Scan } from "../src/store/entities/scan.ts";
import { scanView } from "../src/rpc/scan-views.ts";
import { scanById, type ScanRow } from "../src/store/scans.ts";
import { makeScan, newId } from "./support/scan-fixtures.ts";

let so: TestService;
let producer: ReturnType<NonNullable<TestService["kafka"]>["producer"]>;
let manualLane: EventReader;
let retry1: EventReader;
let dlq: EventReader;
let domain: EventReader;

const team = newId();

beforeAll(async () => {
  so = await startService(service, {
    env: { SCAN_JOB_RETRY_DELAYS_SECONDS: "1", SCAN_JOB_MAX_ATTEMPTS: "2" },
    seams: { leaseSweepEveryMs: 300 },
  });
  producer = so.kafka!.producer();
  await producer.connect();
  [manualLane, retry1, dlq, domain] = await Promise.all([
    EventReader.start(so.kafka!, TOPICS.scanJobsManual),
    EventReader.start(so.kafka!, TOPICS.scanJobsRetry1),
    EventReader.start(so.kafka!, deadLetterTopic(TOPICS.scanJobsManual)),
    EventReader.start(so.kafka!, TOPICS.domainEvents),
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.all([manualLane, retry1, dlq, domain].map((r) => r?.stop()));
  await producer?.disconnect();
  await so?.close();
});

/** Publishes a worker report onto sca.scan.events as scanner-runner does (keyed by scan id). */
async function report<D extends DescMessage>(schema: D, message: MessageShape<D>, scanId: string): Promise<void> {
  const eventId = uuidv7();
  await producer.send({
    topic: so.kafka!.topicName(TOPICS.scanEvents),
    acks: -1,
    messages: [
      {
        key: scanId,
        value: Buffer.from(toBinary(schema, message)),
        headers: { [EVENT_ID]: eventId, [EVENT_TYPE]: schema.typeName },
      },
    ],
  });
}

const progress = (scan: ScanRow, attempt: number, percent: number, step = "cdxgen") =>
  report(ScanProgressSchema, create(ScanProgressSchema, { scanId: scan.id, attempt, percent, step }), scan.id);

const finished = (
  scan: ScanRow,
  attempt: number,
  f: {
    outcome: string;
    retryable?: boolean;
    errorMessage?: string;
    pendingLicenseCount?: number;
    pendingLicensePurls?: string[];
  },
) => report(ScanAttemptFinishedSchema, create(ScanAttemptFinishedSchema, { scanId: scan.id, attempt, ...f }), scan.id);

const stateChange = async (scanId: string, status: string) =>
  (await domain.waitFor(ScanStateChangedSchema, (e) => e.scanId === scanId && e.status === status))[0]!;

const row = async (id: string) => (await scanById(so.orm.em.fork(), id))!;

describe("worker reports", () => {
  it("moves a scan running on its first progress, then succeeded, superseding an older scan of the ref", async () => {
    const project = newId();
    const older = await makeScan(so.orm, { teamId: team, projectId: project, kind: "source", ref: "main" });
    const newer = await makeScan(so.orm, { teamId: team, projectId: project, kind: "source", ref: "refs/heads/main" });
    for (const scan of [older, newer]) {
      await progress(scan, 1, 10);
      await stateChange(scan.id, "running");
    }
    await progress(newer, 1, 55, "scancode");
    await finished(older, 1, { outcome: "succeeded" });
    await stateChange(older.id, "succeeded");
    await finished(newer, 1, { outcome: "succeeded" });
    const landed = await stateChange(newer.id, "succeeded");
    expect(landed).toMatchObject({ previousStatus: "running", supersededScanIds: [older.id], landedSuperseded: false });
    expect(await row(newer.id)).toMatchObject({ status: "succeeded", progressPercent: 100, supersededAt: null });
    expect((await row(older.id)).supersededAt).not.toBeNull();
  });

  it("keeps on a succeeded scan which registry licenses were still being asked at its outcome", async () => {
    const scan = await makeScan(so.orm, { teamId: team, projectId: newId(), kind: "source", ref: "main" });
    await progress(scan, 1, 10);
    await stateChange(scan.id, "running");
    const pendingLicensePurls = ["pkg:maven/junit/junit@4.13.2", "pkg:npm/left-pad@1.3.0"];
    await finished(scan, 1, { outcome: "succeeded", pendingLicenseCount: 250, pendingLicensePurls });
    await stateChange(scan.id, "succeeded");
    expect(await row(scan.id)).toMatchObject({ status: "succeeded", pendingLicenseCount: 250, pendingLicensePurls });
    expect(scanView(await row(scan.id))).toMatchObject({ pendingLicenseCount: 250, pendingLicensePurls });
    // A scan that waited for none says so.
    const other = await makeScan(so.orm, { teamId: team, projectId: newId(), kind: "source", ref: "main" });
    await progress(other, 1, 10);
    await finished(other, 1, { outcome: "succeeded" });
    await stateChange(other.id, "succeeded");
    expect(scanView(await row(other.id))).toMatchObject({ pendingLicenseCount: 0, pendingLicensePurls: [] });
  });

  it("ignores reports about another attempt and about a cancelled scan", async () => {
    const scan = await makeScan(so.orm, { teamId: team, projectId: newId(), status: "running" });
    await so.client(ScanService).adminCancelScan({ scanId: scan.id }, await callAs.superAdmin(randomUUID()));
    await progress(scan, 1, 80);
    await finished(scan, 1, { outcome: "succeeded" });
    // A marker after the late reports: once it is applied, the ones before it were too (same key, same partition).
    const marker = await makeScan(so.orm, { teamId: team, projectId: newId(), status: "running" });
    await report(
      ScanProgressSchema,
      create(ScanProgressSchema, { scanId: marker.id, attempt: 1, percent: 5 }),
      scan.id,
    );
    await domain.waitFor(ScanStateChangedSchema, (e) => e.scanId === scan.id && e.status === "cancelled");
    await waitFor(async () => (await row(marker.id)).progressPercent === 5);
    expect(await row(scan.id)).toMatchObject({ status: "cancelled", progressPercent: 0 });
  });

  it("retries a retryable failure through the retry topic, then gives up into the lane's dead letters", async () => {
    const scan = await makeScan(so.orm, { teamId: team, projectId: newId(), status: "running" });
    await finished(scan, 1, { outcome: "failed", retryable: true, errorMessage: "git clone timed out" });
    await stateChange(scan.id, "queued");
    const [waiting] = await retry1.waitFor(ScanJobSchema, (j) => j.scanId === scan.id);
    expect(waiting).toMatchObject({ attempt: 2, lane: "manual" });
    expect(timestampDate(waiting!.notBefore!).getTime()).toBeGreaterThan(Date.now() - 5_000);
    const [due] = await manualLane.waitFor(ScanJobSchema, (j) => j.scanId === scan.id && j.attempt === 2);
    expect(due!.notBefore).toBeUndefined();
    await progress(scan, 2, 5);
    await stateChange(scan.id, "running");
    await finished(scan, 2, { outcome: "failed", retryable: true, errorMessage: "git clone timed out" });
    const failed = await stateChange(scan.id, "failed");
    expect(failed.errorMessage).toBe("git clone timed out (gave up after 2 attempts)");
    await dlq.waitFor(ScanJobSchema, (j) => j.scanId === scan.id && j.attempt === 2);
  });

  it("fails at once on a failure that is not retryable", async () => {
    const scan = await makeScan(so.orm, { teamId: team, projectId: newId(), status: "running" });
    await finished(scan, 1, { outcome: "failed", retryable: false, errorMessage: "not an SBOM" });
    expect((await stateChange(scan.id, "failed")).errorMessage).toBe("not an SBOM");
  });
});

describe("lease sweep", () => {
  it("publishes the job of a scan whose lease expired again as the next attempt, then fails it", async () => {
    const scan = await makeScan(so.orm, {
      teamId: team,
      projectId: newId(),
      status: "running",
      startedAt: new Date(Date.now() - 600_000),
      leaseExpiresAt: new Date(Date.now() - 1_000),
    });
    await stateChange(scan.id, "queued");
    await manualLane.waitFor(ScanJobSchema, (j) => j.scanId === scan.id && j.attempt === 2);
    await progress(scan, 2, 1);
    await stateChange(scan.id, "running");
    await so.orm.em.fork().nativeUpdate(Scan, { id: scan.id }, { leaseExpiresAt: new Date(Date.now() - 1_000) });
    const failed = await stateChange(scan.id, "failed");
    expect(failed.errorMessage).toBe("The worker running the scan stopped responding (gave up after 2 attempts)");
  });
});

async function waitFor(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("condition not reached");
}
