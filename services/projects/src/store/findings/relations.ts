// What the findings publish to other owners' statements (ADR 9): plain selects of their tables that such a statement
// joins as a derived table. PostgreSQL folds them into the statement, so the plan is the one naming the table gave;
// the columns named here are the ones other modules may read.

/** The open findings (not dated removed by a re-match): each one's component row and vulnerability. */
export const OPEN_FINDINGS = `select component_row_id, vulnerability_id from vulnerability_findings
  where removed_at is null`;

/** Each vulnerability's severity rank (1 unknown .. 6 critical, the component list's severity sort). */
export const VULNERABILITY_SEVERITY_RANKS = "select id, severity_rank from vulnerabilities";
