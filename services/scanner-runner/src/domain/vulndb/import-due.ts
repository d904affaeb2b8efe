// When the local vulnerability database imports (docs/vulnerability-database.md, "Import"): on a fresh install, when
// the configured source is not the one the stored advisories came from (an operator pointed VULNDB_REPOSITORY
// elsewhere: waiting VULNDB_REFRESH_HOURS would leave the old data in place for days), after a failed attempt, and
// when the last success is older than VULNDB_REFRESH_HOURS; never within 15 minutes of a failure.

/** What the status row says of the last attempt. */
export interface ImportStatusFacts {
  /** The last attempt's source, as sourceLabel shows it. */
  source: string;
  lastResult: string;
  lastAttemptAt: Date;
  lastSucceededAt?: Date | null;
}

export const RETRY_AFTER_FAILURE_MS = 15 * 60_000;

/** `source`: the configured source's label (sourceLabel), compared with the one the last attempt read. */
export function importDue(status: ImportStatusFacts | null, source: string, refreshHours: number, now: Date): boolean {
  if (!status?.lastSucceededAt) return !recentlyFailed(status, now);
  if (recentlyFailed(status, now)) return false;
  // A failed attempt (of this source or of a new one) is tried again; a success of another source is replaced.
  if (status.lastResult === "failed" || status.source !== source) return true;
  return now.getTime() - status.lastSucceededAt.getTime() >= refreshHours * 3600_000;
}

function recentlyFailed(status: ImportStatusFacts | null, now: Date): boolean {
  return status?.lastResult === "failed" && now.getTime() - status.lastAttemptAt.getTime() < RETRY_AFTER_FAILURE_MS;
}
