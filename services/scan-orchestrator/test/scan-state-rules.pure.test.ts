import { describe, expect, it } from "@jest/globals";
import {
  applyScanEvent,
  clampPercent,
  isActive,
  isTerminal,
  laneOf,
  newScanRun,
  queueTaskId,
  SCAN_STATUSES,
  type ScanEvent,
  type ScanRun,
  type ScanStatus,
} from "../src/domain/scan-state.ts";
import { isNewer, supersedeOnSuccess } from "../src/domain/supersede.ts";

const T0 = new Date("2026-11-24T10:00:00Z");
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);
const settings = { leaseSeconds: 180 };

function run(overrides: Partial<ScanRun> = {}): ScanRun {
  return { ...newScanRun(), ...overrides };
}

const running = (attempt = 1) =>
  run({ status: "running", attempt, startedAt: T0, leaseExpiresAt: at(180), currentStep: "sbom", progressPercent: 40 });

describe("scan statuses", () => {
  it("has the spec's five statuses, three of them final", () => {
    expect(SCAN_STATUSES).toEqual(["queued", "running", "succeeded", "failed", "cancelled"]);
    expect(SCAN_STATUSES.filter(isTerminal)).toEqual(["succeeded", "failed", "cancelled"]);
    expect(SCAN_STATUSES.filter(isActive)).toEqual(["queued", "running"]);
  });

  it("runs manual scans in the manual lane and webhook or scheduled ones in the automatic lane", () => {
    expect(laneOf("manual")).toBe("manual");
    expect(laneOf("webhook")).toBe("automatic");
    expect(laneOf("schedule")).toBe("automatic");
  });

  it("names a job by its scan and attempt", () => {
    expect(queueTaskId("0190f0e0-0000-7000-8000-000000000001", 2)).toBe("0190f0e0-0000-7000-8000-000000000001/2");
  });
});

describe("scan state machine", () => {
  it("starts a queued scan at its first progress, with a lease", () => {
    const t = applyScanEvent(run(), { type: "progress", attempt: 1, percent: 5, step: "sbom" }, T0, settings);
    expect(t).toEqual({
      ok: true,
      changed: true,
      next: {
        ...run(),
        status: "running",
        startedAt: T0,
        leaseExpiresAt: at(180),
        currentStep: "sbom",
        progressPercent: 5,
      },
    });
  });

  it("renews the lease on progress and heartbeats; a heartbeat leaves step and percent alone", () => {
    const p = applyScanEvent(
      running(),
      { type: "progress", attempt: 1, percent: 70, step: "ingest" },
      at(60),
      settings,
    );
    expect(p).toMatchObject({
      ok: true,
      changed: false,
      next: { status: "running", currentStep: "ingest", progressPercent: 70, leaseExpiresAt: at(240), startedAt: T0 },
    });
    const h = applyScanEvent(
      running(),
      { type: "progress", attempt: 1, percent: 0, step: "", heartbeat: true },
      at(90),
      settings,
    );
    expect(h).toMatchObject({
      ok: true,
      changed: false,
      next: { currentStep: "sbom", progressPercent: 40, leaseExpiresAt: at(270) },
    });
  });

  it("starts a queued scan on a heartbeat that comes first, without claiming a step", () => {
    const t = applyScanEvent(
      run(),
      { type: "progress", attempt: 1, percent: 0, step: "", heartbeat: true },
      T0,
      settings,
    );
    expect(t).toMatchObject({
      ok: true,
      changed: true,
      next: { status: "running", currentStep: "", progressPercent: 0, leaseExpiresAt: at(180) },
    });
  });

  it("clamps progress into 0..100", () => {
    expect(clampPercent(-3)).toBe(0);
    expect(clampPercent(140)).toBe(100);
    expect(clampPercent(33.9)).toBe(33);
    expect(clampPercent(Number.NaN)).toBe(0);
  });

  it("moves running to succeeded at 100 percent and drops the lease", () => {
    const t = applyScanEvent(running(), { type: "succeed", attempt: 1 }, at(100), settings);
    expect(t).toEqual({
      ok: true,
      changed: true,
      next: { ...running(), status: "succeeded", progressPercent: 100, completedAt: at(100), leaseExpiresAt: null },
    });
  });

  it("moves running to failed with the worker's message", () => {
    const t = applyScanEvent(
      running(),
      { type: "fail", attempt: 1, message: "The SBOM is malformed." },
      at(5),
      settings,
    );
    expect(t).toMatchObject({
      ok: true,
      next: { status: "failed", errorMessage: "The SBOM is malformed.", completedAt: at(5), leaseExpiresAt: null },
    });
  });

  it("fails a queued scan from the orchestrator's side (nothing uploaded, attempts exhausted), never from a worker's", () => {
    expect(
      applyScanEvent(run(), { type: "fail", message: "No SBOM was uploaded for this scan." }, T0, settings),
    ).toMatchObject({ ok: true, next: { status: "failed", errorMessage: "No SBOM was uploaded for this scan." } });
    expect(applyScanEvent(run(), { type: "fail", attempt: 1, message: "x" }, T0, settings)).toMatchObject({
      ok: false,
      reason: "not_allowed",
    });
  });

  it("cancels queued and running scans, answers a cancelled one unchanged, refuses finished ones", () => {
    expect(applyScanEvent(run(), { type: "cancel" }, at(1), settings)).toMatchObject({
      ok: true,
      changed: true,
      next: { status: "cancelled", completedAt: at(1) },
    });
    expect(applyScanEvent(running(), { type: "cancel" }, at(1), settings)).toMatchObject({
      ok: true,
      changed: true,
      next: { status: "cancelled", leaseExpiresAt: null },
    });
    const cancelled = run({ status: "cancelled", completedAt: T0 });
    expect(applyScanEvent(cancelled, { type: "cancel" }, at(9), settings)).toEqual({
      ok: true,
      changed: false,
      next: cancelled,
    });
    for (const status of ["succeeded", "failed"] as const) {
      expect(applyScanEvent(run({ status }), { type: "cancel" }, T0, settings)).toMatchObject({
        ok: false,
        reason: "not_allowed",
      });
    }
  });

  it("puts a running scan back in the queue as its next attempt", () => {
    const t = applyScanEvent(running(1), { type: "requeue", attempt: 2 }, at(300), settings);
    expect(t).toEqual({
      ok: true,
      changed: true,
      next: { ...running(1), status: "queued", attempt: 2, currentStep: "", progressPercent: 0, leaseExpiresAt: null },
    });
    // the first start is kept across attempts
    const restarted = applyScanEvent(
      (t as { next: ScanRun }).next,
      { type: "progress", attempt: 2, percent: 1, step: "sbom" },
      at(400),
      settings,
    );
    expect(restarted).toMatchObject({ ok: true, next: { status: "running", attempt: 2, startedAt: T0 } });
  });

  it("ignores reports about an attempt that is no longer the current one", () => {
    const current = running(2);
    const events: ScanEvent[] = [
      { type: "progress", attempt: 1, percent: 90, step: "ingest" },
      { type: "succeed", attempt: 1 },
      { type: "fail", attempt: 1, message: "late" },
      { type: "requeue", attempt: 2 },
    ];
    for (const e of events)
      expect(applyScanEvent(current, e, T0, settings)).toMatchObject({ ok: false, reason: "stale_attempt" });
  });

  it("never moves a finished scan", () => {
    const finished: ScanStatus[] = ["succeeded", "failed", "cancelled"];
    for (const status of finished) {
      const r = run({ status });
      for (const e of [
        { type: "progress", attempt: 1, percent: 1, step: "x" },
        { type: "succeed", attempt: 1 },
        { type: "fail", message: "x" },
        { type: "requeue", attempt: 2 },
      ] as ScanEvent[]) {
        expect(applyScanEvent(r, e, T0, settings)).toMatchObject({ ok: false, reason: "not_allowed" });
      }
    }
  });

  it("does not let a queued scan succeed or go back to the queue before it ran", () => {
    expect(applyScanEvent(run(), { type: "succeed", attempt: 1 }, T0, settings)).toMatchObject({
      ok: false,
      reason: "not_allowed",
    });
    expect(applyScanEvent(run(), { type: "requeue", attempt: 2 }, T0, settings)).toMatchObject({
      ok: false,
      reason: "not_allowed",
    });
  });
});

describe("supersede rule", () => {
  const scan = (id: string, createdSeconds: number, supersededAt: Date | null = null) => ({
    id,
    createdAt: at(createdSeconds),
    supersededAt,
  });

  it("orders scans by when they were asked for, then by id", () => {
    expect(isNewer(scan("a", 10), scan("b", 5))).toBe(true);
    expect(isNewer(scan("a", 5), scan("b", 10))).toBe(false);
    expect(isNewer(scan("b", 5), scan("a", 5))).toBe(true);
  });

  it("supersedes the older successful scans of the same ref that are not superseded yet", () => {
    const landed = scan("c", 30);
    const outcome = supersedeOnSuccess(landed, [scan("a", 10, at(20)), scan("b", 20), landed]);
    expect(outcome).toEqual({ supersede: ["b"], landedSuperseded: false });
  });

  it("lands an older scan that finishes late already superseded, and supersedes nothing newer", () => {
    const landed = scan("a", 10);
    expect(supersedeOnSuccess(landed, [scan("b", 20)])).toEqual({ supersede: [], landedSuperseded: true });
    expect(supersedeOnSuccess(landed, [scan("z", 5), scan("b", 20)])).toEqual({
      supersede: ["z"],
      landedSuperseded: true,
    });
  });

  it("supersedes nothing when the scan is the first success of its ref", () => {
    expect(supersedeOnSuccess(scan("a", 10), [])).toEqual({ supersede: [], landedSuperseded: false });
  });
});
