// When a scan's job runs again. A retryable failure waits out a back-off in a retry topic, one topic per back-off
// tier (retry 1, 2, 3), so each retry topic holds records due in the order they arrive; a running attempt whose
// worker sends nothing for SCAN_LEASE_SECONDS was lost (killed, partitioned) and is published again at once.
// Both use up an attempt, so a job that kills its worker every time ends failed instead of looping.

export const RETRY_TIERS = [1, 2, 3] as const;
export type RetryTier = (typeof RETRY_TIERS)[number];

export interface RetryPolicy {
  /** SCAN_JOB_MAX_ATTEMPTS (1..4): runs of one scan, the first included. */
  maxAttempts: number;
  /** SCAN_JOB_RETRY_DELAYS_SECONDS (1..3 values): back-off before retry 1, 2, 3; the last repeats. */
  delaysSeconds: readonly number[];
}

export type RetryPlan =
  | { kind: "retry"; attempt: number; tier: RetryTier; notBefore: Date }
  /** No attempt left: the scan fails, and its job goes to the lane's dead-letter topic. */
  | { kind: "exhausted"; message: string };

/** What follows a retryable failure of attempt `failedAttempt` at `now`. */
export function retryPlan(failedAttempt: number, policy: RetryPolicy, now: Date, cause: string): RetryPlan {
  if (failedAttempt >= policy.maxAttempts) {
    return {
      kind: "exhausted",
      message: `${cause} (gave up after ${failedAttempt} ${failedAttempt === 1 ? "attempt" : "attempts"})`,
    };
  }
  const tier = Math.min(failedAttempt, RETRY_TIERS.length) as RetryTier;
  const delay = policy.delaysSeconds[Math.min(tier, policy.delaysSeconds.length) - 1] ?? 0;
  return { kind: "retry", attempt: failedAttempt + 1, tier, notBefore: new Date(now.getTime() + delay * 1000) };
}

/** How long a retry record still has to wait before its job goes back to its lane (0: due). */
export function retryWaitMs(notBefore: Date, now: Date): number {
  return Math.max(0, notBefore.getTime() - now.getTime());
}

export interface LeasedRun {
  status: string;
  attempt: number;
  leaseExpiresAt: Date | null;
}

export type LeaseVerdict =
  | { kind: "alive" }
  /** The worker was lost: publish the job again as this attempt, at once (the lease already waited). */
  | { kind: "republish"; attempt: number }
  | { kind: "fail"; message: string };

export const LOST_WORKER_CAUSE = "The worker running the scan stopped responding";

/** The lease rule for a scan at `now`. Only running attempts hold a lease. */
export function leaseVerdict(run: LeasedRun, now: Date, maxAttempts: number): LeaseVerdict {
  if (run.status !== "running" || run.leaseExpiresAt === null || run.leaseExpiresAt.getTime() > now.getTime())
    return { kind: "alive" };
  if (run.attempt >= maxAttempts) {
    return {
      kind: "fail",
      message: `${LOST_WORKER_CAUSE} (gave up after ${run.attempt} ${run.attempt === 1 ? "attempt" : "attempts"})`,
    };
  }
  return { kind: "republish", attempt: run.attempt + 1 };
}
