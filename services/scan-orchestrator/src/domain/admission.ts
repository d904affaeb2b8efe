// Whether a new scan may be queued: the team's concurrent-scan cap (SCAN_MAX_CONCURRENT_PER_TEAM counts its queued
// and running scans) and the disk hard limit (DISK_PRESSURE_*). Both are checked again for every batch row.
import { ProblemError } from "@sca/problem";

/** A scan of no known length is taken to last this long when estimating a wait. */
export const DEFAULT_SCAN_DURATION_SECONDS = 120;
export const RETRY_AFTER_MIN_SECONDS = 1;
export const RETRY_AFTER_MAX_SECONDS = 3600;

export interface TeamLoad {
  /** SCAN_MAX_CONCURRENT_PER_TEAM */
  cap: number;
  /** How long each of the team's running scans has been running. */
  runningElapsedSeconds: readonly number[];
  /** The team's queued scans. */
  queued: number;
  /** The median duration of the team's recent finished scans; null when it has none. */
  typicalDurationSeconds: number | null;
}

export type Admission = { admit: true } | { admit: false; retryAfterSeconds: number };

/** Queued plus running: what the cap counts. */
export function activeCount(load: TeamLoad): number {
  return load.runningElapsedSeconds.length + load.queued;
}

/**
 * When a slot frees, roughly: running scans finish a typical duration after they started (soonest first); queued
 * ones then run as many at a time as are running now and each take a typical duration. Clamped to 1..3600 s.
 */
export function estimateRetryAfterSeconds(load: TeamLoad): number {
  const typical = load.typicalDurationSeconds ?? DEFAULT_SCAN_DURATION_SECONDS;
  const slotsNeeded = activeCount(load) - load.cap + 1;
  const remaining = load.runningElapsedSeconds
    .map((elapsed) => Math.max(RETRY_AFTER_MIN_SECONDS, typical - elapsed))
    .sort((a, b) => a - b);
  let estimate: number;
  if (slotsNeeded <= 0) estimate = RETRY_AFTER_MIN_SECONDS;
  else if (slotsNeeded <= remaining.length) estimate = remaining[slotsNeeded - 1]!;
  else {
    const parallel = Math.max(1, remaining.length);
    const rounds = Math.ceil((slotsNeeded - remaining.length) / parallel);
    estimate = (remaining.at(-1) ?? 0) + rounds * typical;
  }
  return Math.min(RETRY_AFTER_MAX_SECONDS, Math.max(RETRY_AFTER_MIN_SECONDS, Math.ceil(estimate)));
}

/** The cap's decision for one more scan of the team. */
export function admitToTeam(load: TeamLoad): Admission {
  if (activeCount(load) < load.cap) return { admit: true };
  return { admit: false, retryAfterSeconds: estimateRetryAfterSeconds(load) };
}

/** The median of some durations in seconds, or null for none (the typical duration of TeamLoad). */
export function medianSeconds(durations: readonly number[]): number | null {
  if (durations.length === 0) return null;
  const sorted = [...durations].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** 429 for a single scan refused by the cap, with Retry-After. */
export function teamCapProblem(cap: number, retryAfterSeconds: number): ProblemError {
  return new ProblemError({
    status: 429,
    code: "rate_limited",
    detail: `The team already has ${cap} queued or running scans, its limit; try again in about ${retryAfterSeconds} seconds.`,
    extensions: { retry_after_seconds: retryAfterSeconds, concurrent_scan_limit: cap },
    headers: { "Retry-After": String(retryAfterSeconds) },
  });
}

export interface DiskUsage {
  totalBytes: number;
  freeBytes: number;
}

export interface DiskLimits {
  /** DISK_PRESSURE_HARD_LIMIT_PERCENT */
  hardLimitPercent: number;
  /** DISK_PRESSURE_MIN_FREE_BYTES */
  minFreeBytes: number;
}

export type DiskVerdict =
  { refuse: false; usedPercent: number } | { refuse: true; usedPercent: number; detail: string };

/** Whether the artefact volume is past the hard limit: its used share at or above the percentage, or too little free. */
export function diskVerdict(usage: DiskUsage, limits: DiskLimits): DiskVerdict {
  const usedPercent = usage.totalBytes > 0 ? ((usage.totalBytes - usage.freeBytes) / usage.totalBytes) * 100 : 100;
  const rounded = Math.round(usedPercent * 10) / 10;
  if (usedPercent >= limits.hardLimitPercent) {
    return {
      refuse: true,
      usedPercent: rounded,
      detail: `The scan storage is ${rounded}% full (the limit is ${limits.hardLimitPercent}%); new scans are refused until space is freed.`,
    };
  }
  if (usage.freeBytes < limits.minFreeBytes) {
    return {
      refuse: true,
      usedPercent: rounded,
      detail: `The scan storage has ${usage.freeBytes} bytes free (at least ${limits.minFreeBytes} are kept free); new scans are refused until space is freed.`,
    };
  }
  return { refuse: false, usedPercent: rounded };
}

/** 503 with the spec's type ending /disk-pressure. */
export function diskPressureProblem(detail: string): ProblemError {
  return new ProblemError({ status: 503, code: "disk-pressure", title: "Disk pressure", detail });
}
