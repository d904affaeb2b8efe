// The scan state machine: which statuses exist, which event moves a scan from one to the next, and what a move
// sets. Workers report per attempt; a report about an attempt that is no longer the scan's current one (a retry
// or a re-publish started another) changes nothing.

export const SCAN_STATUSES = ["queued", "running", "succeeded", "failed", "cancelled"] as const;
export type ScanStatus = (typeof SCAN_STATUSES)[number];

export const SCAN_KINDS = ["source", "container", "sbom"] as const;
export type ScanKind = (typeof SCAN_KINDS)[number];

/** Who started a scan: a person or an API key (manual), a repository webhook, or the portal's own schedule. */
export const SCAN_TRIGGERS = ["manual", "webhook", "schedule"] as const;
export type ScanTrigger = (typeof SCAN_TRIGGERS)[number];

/** The job lanes: scans someone asked for never wait behind automatic ones (docs/scans.md, "Lanes"). */
export const SCAN_LANES = ["manual", "automatic"] as const;
export type ScanLane = (typeof SCAN_LANES)[number];

export function isScanStatus(value: string): value is ScanStatus {
  return (SCAN_STATUSES as readonly string[]).includes(value);
}

export function isScanKind(value: string): value is ScanKind {
  return (SCAN_KINDS as readonly string[]).includes(value);
}

export function isScanTrigger(value: string): value is ScanTrigger {
  return (SCAN_TRIGGERS as readonly string[]).includes(value);
}

export function laneOf(trigger: ScanTrigger): ScanLane {
  return trigger === "manual" ? "manual" : "automatic";
}

/** Succeeded, failed and cancelled scans never move again. */
export function isTerminal(status: ScanStatus): boolean {
  return status === "succeeded" || status === "failed" || status === "cancelled";
}

/** Queued and running scans: what the team cap counts and what makes a batch row already_exists. */
export function isActive(status: ScanStatus): boolean {
  return status === "queued" || status === "running";
}

/** The queue_task_id of the spec: the job's identity on the queue. */
export function queueTaskId(scanId: string, attempt: number): string {
  return `${scanId}/${attempt}`;
}

/** The part of a scan the state machine reads and writes. */
export interface ScanRun {
  status: ScanStatus;
  /** The current attempt, 1 for the first run. */
  attempt: number;
  currentStep: string;
  progressPercent: number;
  errorMessage: string | null;
  /** When the first attempt started; a retry keeps it. */
  startedAt: Date | null;
  completedAt: Date | null;
  /** Running only: when the attempt counts as lost without news from its worker. */
  leaseExpiresAt: Date | null;
}

export type ScanEvent =
  /** The worker's progress (or heartbeat) for an attempt; the first one of an attempt moves the scan to running. */
  | { type: "progress"; attempt: number; percent: number; step: string; heartbeat?: boolean }
  | { type: "succeed"; attempt: number }
  /** A worker's failure of an attempt, or (no attempt) the orchestrator's: nothing uploaded, attempts exhausted. */
  | { type: "fail"; attempt?: number; message: string }
  /** Back to the queue as attempt `attempt` (a retry, or a re-publish after the worker was lost). */
  | { type: "requeue"; attempt: number }
  | { type: "cancel" };

export type Transition =
  | { ok: true; next: ScanRun; changed: boolean }
  | { ok: false; reason: "stale_attempt" | "not_allowed"; detail: string };

export interface StateSettings {
  /** SCAN_LEASE_SECONDS */
  leaseSeconds: number;
}

const refuse = (detail: string): Transition => ({ ok: false, reason: "not_allowed", detail });
const stale = (attempt: number, current: number): Transition => ({
  ok: false,
  reason: "stale_attempt",
  detail: `attempt ${attempt} is not the scan's current attempt (${current})`,
});

function addSeconds(at: Date, seconds: number): Date {
  return new Date(at.getTime() + seconds * 1000);
}

export function clampPercent(percent: number): number {
  return Number.isFinite(percent) ? Math.min(100, Math.max(0, Math.trunc(percent))) : 0;
}

/** The move `event` makes from `run` at `now`, or why it makes none. */
export function applyScanEvent(run: ScanRun, event: ScanEvent, now: Date, settings: StateSettings): Transition {
  const { status } = run;
  switch (event.type) {
    case "progress": {
      if (event.attempt !== run.attempt) return stale(event.attempt, run.attempt);
      if (!isActive(status)) return refuse(`a ${status} scan takes no progress`);
      const lease = addSeconds(now, settings.leaseSeconds);
      if (event.heartbeat && status === "running")
        return { ok: true, next: { ...run, leaseExpiresAt: lease }, changed: false };
      return {
        ok: true,
        changed: status === "queued",
        next: {
          ...run,
          status: "running",
          startedAt: run.startedAt ?? now,
          leaseExpiresAt: lease,
          // A heartbeat that arrives first starts the attempt without claiming a step.
          ...(event.heartbeat ? {} : { currentStep: event.step, progressPercent: clampPercent(event.percent) }),
        },
      };
    }
    case "succeed":
      if (event.attempt !== run.attempt) return stale(event.attempt, run.attempt);
      if (status !== "running") return refuse(`a ${status} scan cannot succeed`);
      return {
        ok: true,
        changed: true,
        next: {
          ...run,
          status: "succeeded",
          progressPercent: 100,
          completedAt: now,
          leaseExpiresAt: null,
          errorMessage: null,
        },
      };
    case "fail":
      if (event.attempt !== undefined && event.attempt !== run.attempt) return stale(event.attempt, run.attempt);
      if (event.attempt !== undefined ? status !== "running" : !isActive(status))
        return refuse(`a ${status} scan cannot fail`);
      return {
        ok: true,
        changed: true,
        next: { ...run, status: "failed", completedAt: now, leaseExpiresAt: null, errorMessage: event.message },
      };
    case "requeue":
      if (event.attempt !== run.attempt + 1) return stale(event.attempt - 1, run.attempt);
      if (status !== "running") return refuse(`a ${status} scan cannot go back to the queue`);
      return {
        ok: true,
        changed: true,
        next: {
          ...run,
          status: "queued",
          attempt: event.attempt,
          currentStep: "",
          progressPercent: 0,
          leaseExpiresAt: null,
        },
      };
    case "cancel":
      if (status === "cancelled") return { ok: true, changed: false, next: run };
      if (!isActive(status)) return refuse(`a ${status} scan cannot be cancelled`);
      return { ok: true, changed: true, next: { ...run, status: "cancelled", completedAt: now, leaseExpiresAt: null } };
  }
}

/** A scan before its first attempt. */
export function newScanRun(): ScanRun {
  return {
    status: "queued",
    attempt: 1,
    currentStep: "",
    progressPercent: 0,
    errorMessage: null,
    startedAt: null,
    completedAt: null,
    leaseExpiresAt: null,
  };
}
