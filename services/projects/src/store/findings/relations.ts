// What the findings publish to other owners' statements (ADR 9): plain selects of their tables that such a statement
// joins as a derived table. PostgreSQL folds them into the statement, so the plan is the one naming the table gave;
// the columns named here are the ones other modules may read.

/** The open findings (not dated removed by a re-match): each one's component row and vulnerability. */
export const OPEN_FINDINGS = `select component_row_id, vulnerability_id from vulnerability_findings
  where removed_at is null`;

/** Each vulnerability's severity rank (1 unknown .. 6 critical, the component list's severity sort). */
export const VULNERABILITY_SEVERITY_RANKS = "select id, severity_rank from vulnerabilities";

/**
 * How many counted writes the finding list of a snapshot derives from (finding_changes, migration FindingChanges):
 * those of its findings, of its project's triage and of every snapshot's vulnerabilities. Each count only grows while
 * the snapshot lives, so their sum identifies the committed writes a reader sees. SQL expressions naming the scan and
 * the project.
 */
export const findingWritesSql = (scanId: string, projectId: string) =>
  `(select count(*) from finding_changes where scan_id = ${scanId})
   + (select count(*) from finding_changes where project_id = ${projectId})
   + (select count(*) from finding_changes where scan_id is null and project_id is null)`;
