// The governance band's reads of findings (docs/governance.md): the recent snapshots' open findings by severity,
// the newest snapshot's known-exploited findings against their due dates, and its findings awaiting a second person.
// A handful of statements over the (scan_id, vulnerability_id) index, whatever the project's size. Raw SQL (ADR 5):
// counts grouped and filtered in PostgreSQL, no row reaches us.
import type { EntityManager } from "@mikro-orm/postgresql";
import { column, rawQuery } from "@sca/db";
import { CLOSING_STATES } from "../../domain/gate-facts.ts";

const OPEN_FINDINGS = `from vulnerability_findings f
  join vulnerabilities v on v.id = f.vulnerability_id
  join finding_triage t on t.project_id = f.project_id and t.component_key = f.component_key
    and t.vulnerability_id = f.vulnerability_id
  where f.removed_at is null and t.status not in (select jsonb_array_elements_text(?::jsonb))`;

/** Open findings per snapshot and severity. */
export async function openFindingsBySeverity(
  em: EntityManager,
  scanIds: string[],
): Promise<{ scanId: string; severity: string; count: number }[]> {
  if (scanIds.length === 0) return [];
  return rawQuery(
    em,
    `select f.scan_id, v.severity, count(*) as count ${OPEN_FINDINGS}
       and f.scan_id in (select jsonb_array_elements_text(?::jsonb)::uuid)
     group by f.scan_id, v.severity`,
    [JSON.stringify(CLOSING_STATES), JSON.stringify(scanIds)],
    { scanId: column.text, severity: column.text, count: column.integer },
  );
}

export interface KevRow {
  open: number;
  overdue: number;
  dueSoon: number;
  withoutDueDate: number;
  nextDueDate: string | null;
  oldestOverdueDate: string | null;
}

/** The snapshot's open known-exploited findings against their due dates (YYYY-MM-DD compare as text). */
export async function kevDueDates(
  em: EntityManager,
  scanId: string,
  today: string,
  dueSoonBy: string,
): Promise<KevRow> {
  const [row] = await rawQuery(
    em,
    `select count(*) as open,
       count(*) filter (where v.kev_due_date <> '' and v.kev_due_date < ?) as overdue,
       count(*) filter (where v.kev_due_date >= ? and v.kev_due_date <= ?) as due_soon,
       count(*) filter (where v.kev_due_date = '') as without_due_date,
       min(v.kev_due_date) filter (where v.kev_due_date >= ?) as next_due_date,
       min(v.kev_due_date) filter (where v.kev_due_date <> '' and v.kev_due_date < ?) as oldest_overdue_date
     ${OPEN_FINDINGS} and f.scan_id = ? and v.known_exploited`,
    [today, today, dueSoonBy, today, today, JSON.stringify(CLOSING_STATES), scanId],
    {
      open: column.integer,
      overdue: column.integer,
      dueSoon: column.integer,
      withoutDueDate: column.integer,
      nextDueDate: column.text.nullable,
      oldestOverdueDate: column.text.nullable,
    },
  );
  return row!;
}

/** Findings of the snapshot whose status change waits for a second person. */
export async function pendingConfirmations(em: EntityManager, scanId: string): Promise<number> {
  const [row] = await rawQuery(
    em,
    `select count(*) as n from vulnerability_findings f
       join finding_triage t on t.project_id = f.project_id and t.component_key = f.component_key
         and t.vulnerability_id = f.vulnerability_id
     where f.scan_id = ? and f.removed_at is null and t.pending_status is not null`,
    [scanId],
    { n: column.integer },
  );
  return row?.n ?? 0;
}
