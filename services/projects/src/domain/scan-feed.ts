// How scan events keep a project's scan-fed fields (docs/projects.md, "Scan-fed fields"). Projects keeps one row per
// scan it heard of (known_scans); the fields are figures over those rows and the newest snapshot.
//
// Ordering: events of one scan travel keyed by its id (one partition, in order), but a replay, a late copy or a
// ScansDeleted (keyed by project) can still overtake or trail them. So a scan's row takes an event only when the
// rule below says it is news; "the newest scan" is the one asked for last (created_at, then id: UUIDv7 ids sort by
// creation), whatever order the events arrive in.

export const TERMINAL_STATUSES = ["succeeded", "failed", "cancelled"] as const;
export const SCAN_STATUSES = ["queued", "running", ...TERMINAL_STATUSES] as const;
export type ScanStatus = (typeof SCAN_STATUSES)[number];

/** The license_category_summary key of components no license policy has categorised yet. */
export const UNCATEGORIZED = "uncategorized";

export function isScanStatus(s: string): s is ScanStatus {
  return (SCAN_STATUSES as readonly string[]).includes(s);
}

/** What projects holds of a scan (a row of known_scans). */
export interface KnownScanState {
  status: ScanStatus | null;
  /** When the event that last changed the row occurred. */
  changedAt: Date;
  /** Retention deleted the scan: nothing brings it back. */
  deleted: boolean;
}

/** A ScanStateChanged as the rule reads it. */
export interface ScanStateNews {
  status: ScanStatus;
  occurredAt: Date;
}

/**
 * Whether the event changes the scan's row: a scan not heard of yet takes any event; a deleted scan none; a
 * finished scan (succeeded, failed, cancelled: the orchestrator never moves one again) none; otherwise an event
 * not older than the last one applied.
 */
export function stateNewsApplies(known: KnownScanState | null, news: ScanStateNews): boolean {
  if (!known) return true;
  if (known.deleted) return false;
  if (known.status !== null && (TERMINAL_STATUSES as readonly string[]).includes(known.status)) return false;
  return news.occurredAt.getTime() >= known.changedAt.getTime();
}
