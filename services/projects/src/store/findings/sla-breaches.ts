// The SLA sweep's statement (docs/findings.md, "Remediation windows"): marks, in one set-based UPDATE, the triages
// whose finding in a project's newest snapshot is still open past its window and not yet marked, and answers what
// it marked with the facts the breach event carries. Bounded per call (`limit`); the sweep calls again until a call
// marks fewer. Archived projects are left out. A concurrent sweep (another replica) cannot mark a row twice: the
// UPDATE re-checks `sla_breached_at is null` on the row it locks. Raw SQL (ADR 5): a bounded set-based update.
import type { EntityManager } from "@mikro-orm/postgresql";
import { column, rawQuery } from "@sca/db";
import { OPEN_STATES, SLA_SEVERITIES, type SlaSeverity } from "../../domain/vulnerability-sla.ts";
import { COMPONENT_ROWS, LATEST_SNAPSHOTS } from "../inventory/relations.ts";
import { ACTIVE_PROJECT_ROWS } from "../projects.ts";

export interface MarkedBreach {
  projectId: string;
  teamId: string;
  scanId: string;
  findingId: string;
  vulnerabilityId: string;
  severity: string;
  componentName: string;
  componentVersion: string | null;
  purl: string | null;
  firstDetectedAt: Date;
}

export async function markSlaBreaches(
  em: EntityManager,
  cutoffs: Record<SlaSeverity, Date>,
  now: Date,
  limit: number,
): Promise<MarkedBreach[]> {
  return rawQuery(
    em,
    `with due as (
       select f.project_id, p.team_id, f.scan_id, f.id as finding_id, f.component_key, f.vulnerability_id, v.severity,
         c.name as component_name, c.version as component_version, c.purl
       from (${LATEST_SNAPSHOTS}) l
       join vulnerability_findings f on f.scan_id = l.scan_id and f.removed_at is null
       join vulnerabilities v on v.id = f.vulnerability_id
       join finding_triage t on t.project_id = f.project_id and t.component_key = f.component_key
         and t.vulnerability_id = f.vulnerability_id
       join (${COMPONENT_ROWS}) c on c.id = f.component_row_id
       join (${ACTIVE_PROJECT_ROWS}) p on p.id = f.project_id
       where t.sla_breached_at is null and t.status in (select jsonb_array_elements_text(?::jsonb))
         and t.first_detected_at <= case v.severity
           ${SLA_SEVERITIES.map((s) => `when '${s}' then ?::timestamptz`).join(" ")} end
       limit ?
     )
     update finding_triage t set sla_breached_at = ?
     from due d
     where t.project_id = d.project_id and t.component_key = d.component_key
       and t.vulnerability_id = d.vulnerability_id and t.sla_breached_at is null
     returning d.project_id, d.team_id, d.scan_id, d.finding_id, d.vulnerability_id, d.severity, d.component_name,
       d.component_version, d.purl, t.first_detected_at`,
    [JSON.stringify(OPEN_STATES), ...SLA_SEVERITIES.map((s) => cutoffs[s].toISOString()), limit, now.toISOString()],
    {
      projectId: column.text,
      teamId: column.text,
      scanId: column.text,
      findingId: column.text,
      vulnerabilityId: column.text,
      severity: column.text,
      componentName: column.text,
      componentVersion: column.text.nullable,
      purl: column.text.nullable,
      firstDetectedAt: column.timestamp,
    },
  );
}
