// Which scans the retention sweep deletes, one project at a time, under the spec's three keys:
//   SCAN_RETENTION_SUPERSEDED_GRACE_DAYS  a superseded scan goes this many days after it was superseded;
//   SCAN_RETENTION_MAX_AGE_DAYS           any finished scan goes at this age (0: never by age);
//   SCAN_RETENTION_KEEP_LAST              the newest this-many ref-less or unsuccessful scans of a project stay
//                                         whatever the two rules above say (the spec's minimum).
// Never deleted: queued or running scans; scans labelled with a release (the spec exempts them from the age
// ceiling; we keep them from the superseded grace too, or a release diff would lose its base a week after the next
// release on the same ref); the project's latest succeeded scan (its current inventory).
import { isNewer } from "./supersede.ts";
import { isTerminal, type ScanStatus } from "./scan-state.ts";

export interface RetentionSettings {
  supersededGraceDays: number;
  keepLast: number;
  /** 0: no age ceiling. */
  maxAgeDays: number;
}

export interface RetentionCandidate {
  id: string;
  status: ScanStatus;
  normalizedRef: string;
  release: string | null;
  createdAt: Date;
  supersededAt: Date | null;
}

export type RetentionReason = "superseded" | "max_age";

export interface RetentionDecision {
  id: string;
  reason: RetentionReason;
}

const DAY_MS = 86_400_000;

const newestFirst = (a: RetentionCandidate, b: RetentionCandidate) => (isNewer(a, b) ? -1 : isNewer(b, a) ? 1 : 0);

/** The scans of one project (all of them, in any order) that the sweep deletes at `now`, and why. */
export function scansToDelete(
  scans: readonly RetentionCandidate[],
  now: Date,
  settings: RetentionSettings,
): RetentionDecision[] {
  const sorted = [...scans].sort(newestFirst);
  const kept = new Set<string>();
  const latestSucceeded = sorted.find((s) => s.status === "succeeded");
  if (latestSucceeded) kept.add(latestSucceeded.id);
  // Finished scans only: a queued or running scan is never deleted anyway, so it takes no place among the kept.
  sorted
    .filter(
      (s) => isTerminal(s.status) && (s.normalizedRef === "" || s.status === "failed" || s.status === "cancelled"),
    )
    .slice(0, settings.keepLast)
    .forEach((s) => kept.add(s.id));

  const supersededBefore = now.getTime() - settings.supersededGraceDays * DAY_MS;
  const createdBefore = settings.maxAgeDays > 0 ? now.getTime() - settings.maxAgeDays * DAY_MS : -Infinity;
  const decisions: RetentionDecision[] = [];
  for (const scan of sorted) {
    if (!isTerminal(scan.status) || scan.release !== null || kept.has(scan.id)) continue;
    if (scan.supersededAt !== null && scan.supersededAt.getTime() <= supersededBefore)
      decisions.push({ id: scan.id, reason: "superseded" });
    else if (scan.createdAt.getTime() <= createdBefore) decisions.push({ id: scan.id, reason: "max_age" });
  }
  return decisions;
}

/** The time before which a scan may be due for deletion: what the sweep's candidate query looks for. */
export function retentionHorizon(
  now: Date,
  settings: RetentionSettings,
): { supersededBefore: Date; createdBefore: Date | null } {
  return {
    supersededBefore: new Date(now.getTime() - settings.supersededGraceDays * DAY_MS),
    createdBefore: settings.maxAgeDays > 0 ? new Date(now.getTime() - settings.maxAgeDays * DAY_MS) : null,
  };
}
