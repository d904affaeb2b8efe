// The spec's batch result (concepts: "Batch result"; Limits: "Batch"), the one count behind every :batch endpoint:
// rows are processed in order and independently; `created` and `already_exists` are successes, every other status
// is a failure counted in failed_by_status; the answer is 201 when every row succeeded, else 207. What a row's
// status means is each service's rule; how the rows add up is this.

/** The most rows one batch request may carry. */
export const BATCH_MAX_ROWS = 200;

export interface BatchSummary {
  allSucceeded: boolean;
  total: number;
  created: number;
  alreadyExisted: number;
  failed: number;
  failedByStatus: Record<string, number>;
  /** 201 when every row succeeded (created or already_exists), else 207. */
  httpStatus: 201 | 207;
}

export function summarizeBatch<Row extends { status: string }>(rows: readonly Row[]): BatchSummary {
  const failedByStatus: Record<string, number> = {};
  let created = 0;
  let alreadyExisted = 0;
  for (const { status } of rows) {
    if (status === "created") created++;
    else if (status === "already_exists") alreadyExisted++;
    else failedByStatus[status] = (failedByStatus[status] ?? 0) + 1;
  }
  const failed = rows.length - created - alreadyExisted;
  return {
    allSucceeded: failed === 0,
    total: rows.length,
    created,
    alreadyExisted,
    failed,
    failedByStatus,
    httpStatus: failed === 0 ? 201 : 207,
  };
}
