// What a scan's end tells people: scan.failed and scan.succeeded from ScanStateChanged, who gets them by default
// (the project's team by role, and the person who asked for the scan), and what they read.
import type { NotificationSeverity } from "@sca/vocabulary";

export interface ScanOutcome {
  scanId: string;
  projectId: string;
  teamId: string;
  kind: string;
  status: string;
  previousStatus: string;
  ref: string;
  release: string | null;
  requestedByUserId: string | null;
  errorMessage: string | null;
  attempt: number;
}

export interface NotificationContent {
  kind: string;
  severity: NotificationSeverity | null;
  title: string;
  body: string;
  link: string;
}

/** The team roles that receive each outcome by default (docs/notifications.md); viewers only read. */
export const SCAN_OUTCOME_ROLES: Record<string, readonly string[]> = {
  "scan.failed": ["group_admin", "team_admin", "developer"],
  "scan.succeeded": ["team_admin", "developer"],
};

/** The notification a state change raises, or null: only the move into failed or succeeded raises one. */
export function scanOutcomeNotification(s: ScanOutcome): NotificationContent | null {
  if (s.status === s.previousStatus) return null;
  const what = `${s.kind} scan${s.ref ? ` of ${s.ref}` : ""}${s.release ? ` (release ${s.release})` : ""}`;
  const link = `/projects/${s.projectId}/scans/${s.scanId}`;
  if (s.status === "failed") {
    const why = s.errorMessage?.trim() || "No reason was given.";
    return {
      kind: "scan.failed",
      severity: "medium",
      title: `Scan failed: ${what}`,
      body: `The ${what} failed after ${s.attempt} attempt${s.attempt === 1 ? "" : "s"}: ${why}`,
      link,
    };
  }
  if (s.status === "succeeded")
    return {
      kind: "scan.succeeded",
      severity: null,
      title: `Scan succeeded: ${what}`,
      body: `The ${what} succeeded.`,
      link,
    };
  return null;
}
