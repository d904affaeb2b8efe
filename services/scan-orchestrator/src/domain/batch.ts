// Batch scan creation (POST /v1/scans:batch): at most 200 rows, processed in order and independently. Each row's
// facts are read after the rows before it were applied, so a project listed twice is already_exists the second
// time and the team cap is re-counted per row.
import { BATCH_MAX_ROWS } from "@sca/batch";
import type { Admission } from "./admission.ts";
import { UUID } from "@sca/ids";

export const BATCH_ROW_STATUSES = ["created", "already_exists", "forbidden", "invalid", "rate_limited"] as const;
export type BatchRowStatus = (typeof BATCH_ROW_STATUSES)[number];

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** What is known of a row's project when its turn comes. */
export type BatchRowFacts =
  /** The caller cannot see the project, or no such project exists: the same answer, so existence stays hidden. */
  | { project: "not_visible" }
  /** A member below developer, or an API key whose grant does not reach the project or cannot write. */
  | { project: "not_allowed" }
  | { project: "archived" }
  | { project: "open"; activeScanId: string | null; admission: Admission };

export interface BatchRowOutcome {
  index: number;
  projectId: string;
  status: BatchRowStatus;
  scanId: string | null;
  detail: string | null;
  retryAfterSeconds: number | null;
}

/**
 * The row's outcome before any scan is created; `created` means the caller now creates it (and sets scanId).
 * `facts` is null when nothing was looked up (an id that is not a UUID names no project).
 */
export function batchRowOutcome(index: number, projectId: string, facts: BatchRowFacts | null): BatchRowOutcome {
  const row = (
    status: BatchRowStatus,
    detail: string | null,
    extra: Partial<BatchRowOutcome> = {},
  ): BatchRowOutcome => ({ index, projectId, status, scanId: null, detail, retryAfterSeconds: null, ...extra });
  if (!isUuid(projectId)) return row("invalid", "The project id is not a UUID.");
  const f: BatchRowFacts = facts ?? { project: "not_visible" };
  switch (f.project) {
    case "not_visible":
    case "not_allowed":
      return row("forbidden", "You are not a developer of the project's team, or there is no such project.");
    case "archived":
      return row("invalid", "The project is archived.");
    case "open":
      if (f.activeScanId)
        return row("already_exists", "A scan of this project and ref is already queued or running.", {
          scanId: f.activeScanId,
        });
      if (!f.admission.admit) {
        return row("rate_limited", "The team's concurrent-scan limit is reached.", {
          retryAfterSeconds: f.admission.retryAfterSeconds,
        });
      }
      return row("created", null);
  }
}

/** The batch's own bounds: a violation refuses the whole request (422), before any row. */
export function batchRequestProblem(projectIds: readonly string[]): { path: string; message: string } | null {
  if (projectIds.length === 0) return { path: "body.project_ids", message: "must list at least one project" };
  if (projectIds.length > BATCH_MAX_ROWS)
    return { path: "body.project_ids", message: `must list at most ${BATCH_MAX_ROWS} projects` };
  return null;
}
