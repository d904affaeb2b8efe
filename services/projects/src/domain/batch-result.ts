// A row of the project batch (POST /v1/projects:batch): its status and what it names. How rows add up to the
// spec's batch result is @sca/batch's summarizeBatch.

export type RowStatus = "created" | "already_exists" | "forbidden" | "invalid";

export interface BatchRowOutcome {
  index: number;
  status: RowStatus;
  projectId?: string;
  detail?: string;
}
