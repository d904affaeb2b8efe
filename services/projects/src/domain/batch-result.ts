// The spec's batch result: rows processed in order and independently, each with its status; `created` and
// `already_exists` are successes, every other status a failure counted in failed_by_status. 201 when all
// succeeded, else 207 (the edge reads all_succeeded).

export const BATCH_MAX_ROWS = 200;

export type RowStatus = "created" | "already_exists" | "forbidden" | "invalid";

export interface BatchRowOutcome {
  index: number;
  status: RowStatus;
  projectId?: string;
  detail?: string;
}

export interface BatchTally {
  allSucceeded: boolean;
  total: number;
  created: number;
  alreadyExisted: number;
  failed: number;
  failedByStatus: Record<string, number>;
  rows: BatchRowOutcome[];
}

export function tally(rows: BatchRowOutcome[]): BatchTally {
  const failedByStatus: Record<string, number> = {};
  let created = 0;
  let alreadyExisted = 0;
  for (const row of rows) {
    if (row.status === "created") created++;
    else if (row.status === "already_exists") alreadyExisted++;
    else failedByStatus[row.status] = (failedByStatus[row.status] ?? 0) + 1;
  }
  const failed = rows.length - created - alreadyExisted;
  return { allSucceeded: failed === 0, total: rows.length, created, alreadyExisted, failed, failedByStatus, rows };
}
