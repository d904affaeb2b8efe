import { describe, expect, it } from "@jest/globals";
import { BATCH_MAX_ROWS, summarizeBatch } from "@sca/batch";
import { ProblemError } from "@sca/problem";
import {
  activeCount,
  admitToTeam,
  DEFAULT_SCAN_DURATION_SECONDS,
  diskPressureProblem,
  diskVerdict,
  estimateRetryAfterSeconds,
  medianSeconds,
  teamCapProblem,
  type TeamLoad,
} from "../src/domain/admission.ts";
import { scanOrchestratorKeys } from "../src/config.ts";
import { batchRequestProblem, batchRowOutcome, type BatchRowOutcome } from "../src/domain/batch.ts";

const P1 = "0190f0e0-0000-7000-8000-000000000001";
const S1 = "0190f0e0-0000-7000-8000-0000000000aa";

const load = (o: Partial<TeamLoad> = {}): TeamLoad => ({
  cap: 3,
  runningElapsedSeconds: [],
  queued: 0,
  typicalDurationSeconds: 100,
  ...o,
});

describe("per-team concurrent-scan cap", () => {
  it("counts queued and running scans", () => {
    expect(activeCount(load({ runningElapsedSeconds: [1, 2], queued: 4 }))).toBe(6);
  });

  it("admits below the cap and refuses at it", () => {
    expect(admitToTeam(load({ runningElapsedSeconds: [10], queued: 1 }))).toEqual({ admit: true });
    expect(admitToTeam(load({ runningElapsedSeconds: [10, 20], queued: 1 }))).toEqual({
      admit: false,
      retryAfterSeconds: 80,
    });
  });

  it("estimates the wait from the soonest-finishing running scan", () => {
    // typical 100 s: the scan running for 90 s frees a slot in about 10 s
    expect(estimateRetryAfterSeconds(load({ runningElapsedSeconds: [30, 90, 60] }))).toBe(10);
    // a scan already past the typical duration may end any moment
    expect(estimateRetryAfterSeconds(load({ runningElapsedSeconds: [500, 10, 10] }))).toBe(1);
  });

  it("adds rounds of typical durations for slots only queued scans can free", () => {
    // cap 3, 2 running (remaining 50 and 80), 3 queued: 3 slots needed, the third after the running ones plus one round
    expect(estimateRetryAfterSeconds(load({ runningElapsedSeconds: [50, 20], queued: 3 }))).toBe(80 + 100);
    // nothing running yet: queued scans take a typical duration each, one at a time
    expect(estimateRetryAfterSeconds(load({ runningElapsedSeconds: [], queued: 4 }))).toBe(200);
  });

  it("falls back on a default duration and clamps the estimate to 1..3600 s", () => {
    expect(estimateRetryAfterSeconds(load({ typicalDurationSeconds: null, runningElapsedSeconds: [0, 0, 0] }))).toBe(
      DEFAULT_SCAN_DURATION_SECONDS,
    );
    expect(estimateRetryAfterSeconds(load({ cap: 1, typicalDurationSeconds: 3000, queued: 10 }))).toBe(3600);
    expect(estimateRetryAfterSeconds(load({ runningElapsedSeconds: [99.5, 0, 0] }))).toBe(1);
  });

  it("takes the median of recent durations as typical", () => {
    expect(medianSeconds([])).toBeNull();
    expect(medianSeconds([30, 10, 20])).toBe(20);
    expect(medianSeconds([40, 10, 20, 30])).toBe(25);
  });

  it("answers a refused scan with 429 rate_limited and Retry-After", () => {
    const p = teamCapProblem(20, 45);
    expect(p).toBeInstanceOf(ProblemError);
    expect(p.init).toMatchObject({
      status: 429,
      code: "rate_limited",
      headers: { "Retry-After": "45" },
      extensions: { retry_after_seconds: 45, concurrent_scan_limit: 20 },
    });
  });

  it("defaults the cap key to 20", () => {
    expect(scanOrchestratorKeys.SCAN_MAX_CONCURRENT_PER_TEAM.parse(undefined, {})).toBe(20);
  });
});

describe("disk pressure", () => {
  const GiB = 1024 ** 3;
  const limits = { hardLimitPercent: 95, minFreeBytes: GiB };

  it("admits below the hard limit", () => {
    expect(diskVerdict({ totalBytes: 100 * GiB, freeBytes: 50 * GiB }, limits)).toEqual({
      refuse: false,
      usedPercent: 50,
    });
  });

  it("refuses at the hard limit percentage", () => {
    const v = diskVerdict({ totalBytes: 100 * GiB, freeBytes: 5 * GiB }, limits);
    expect(v).toMatchObject({ refuse: true, usedPercent: 95, detail: expect.stringContaining("95% full") });
  });

  it("refuses with too little free space on a large volume", () => {
    const v = diskVerdict(
      { totalBytes: 10_000 * GiB, freeBytes: GiB / 2 },
      { hardLimitPercent: 100, minFreeBytes: GiB },
    );
    expect(v).toMatchObject({ refuse: true, detail: expect.stringContaining("bytes free") });
  });

  it("treats a volume it cannot size as full", () => {
    expect(diskVerdict({ totalBytes: 0, freeBytes: 0 }, limits)).toMatchObject({ refuse: true, usedPercent: 100 });
  });

  it("answers 503 with a type ending /disk-pressure", () => {
    const doc = diskPressureProblem("full").toDocument("https://portal.example", "/v1/projects/x/scans");
    expect(doc).toMatchObject({ status: 503, type: "https://portal.example/problems/disk-pressure", detail: "full" });
  });
});

describe("batch rows", () => {
  const admit = { admit: true } as const;

  it("refuses ids that are not UUIDs as invalid without looking anything up", () => {
    expect(batchRowOutcome(0, "not-a-uuid", null)).toMatchObject({
      index: 0,
      status: "invalid",
      detail: "The project id is not a UUID.",
    });
  });

  it("answers forbidden alike for an invisible project, a missing one and one the caller may not scan", () => {
    const a = batchRowOutcome(1, P1, { project: "not_visible" });
    const b = batchRowOutcome(1, P1, { project: "not_allowed" });
    const c = batchRowOutcome(1, P1, null);
    expect(a).toMatchObject({ status: "forbidden" });
    expect(b).toEqual(a);
    expect(c).toEqual(a);
  });

  it("refuses archived projects as invalid", () => {
    expect(batchRowOutcome(2, P1, { project: "archived" })).toMatchObject({
      status: "invalid",
      detail: "The project is archived.",
    });
  });

  it("answers already_exists with the queued or running scan, before counting the cap", () => {
    const row = batchRowOutcome(3, P1, {
      project: "open",
      activeScanId: S1,
      admission: { admit: false, retryAfterSeconds: 30 },
    });
    expect(row).toEqual({
      index: 3,
      projectId: P1,
      status: "already_exists",
      scanId: S1,
      detail: expect.any(String),
      retryAfterSeconds: null,
    });
  });

  it("answers rate_limited with the estimated wait past the cap, else created", () => {
    expect(
      batchRowOutcome(4, P1, {
        project: "open",
        activeScanId: null,
        admission: { admit: false, retryAfterSeconds: 42 },
      }),
    ).toMatchObject({ status: "rate_limited", retryAfterSeconds: 42, scanId: null });
    expect(batchRowOutcome(5, P1, { project: "open", activeScanId: null, admission: admit })).toEqual({
      index: 5,
      projectId: P1,
      status: "created",
      scanId: null,
      detail: null,
      retryAfterSeconds: null,
    });
  });

  it("summarises: 201 when every row succeeded, else 207 with failures by status", () => {
    const rows = (statuses: BatchRowOutcome["status"][]) => statuses.map((status) => ({ status }));
    expect(summarizeBatch(rows(["created", "already_exists"]))).toEqual({
      allSucceeded: true,
      total: 2,
      created: 1,
      alreadyExisted: 1,
      failed: 0,
      failedByStatus: {},
      httpStatus: 201,
    });
    expect(summarizeBatch(rows(["created", "rate_limited", "rate_limited", "forbidden", "invalid"]))).toEqual({
      allSucceeded: false,
      total: 5,
      created: 1,
      alreadyExisted: 0,
      failed: 4,
      failedByStatus: { rate_limited: 2, forbidden: 1, invalid: 1 },
      httpStatus: 207,
    });
  });

  it("summarises a batch that changes nothing as created 0 and already_existed equal to total", () => {
    expect(summarizeBatch([{ status: "already_exists" }, { status: "already_exists" }])).toMatchObject({
      created: 0,
      alreadyExisted: 2,
      total: 2,
      httpStatus: 201,
    });
  });

  it("takes 1 to 200 rows", () => {
    expect(batchRequestProblem([])).toMatchObject({ path: "body.project_ids" });
    expect(batchRequestProblem(Array(BATCH_MAX_ROWS).fill(P1))).toBeNull();
    expect(batchRequestProblem(Array(BATCH_MAX_ROWS + 1).fill(P1))).toMatchObject({
      message: "must list at most 200 projects",
    });
  });
});
