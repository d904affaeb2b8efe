// What a KEV listing touches (docs/findings.md, "KEV listings"): the open findings of each project's newest snapshot
// whose vulnerability the refresh just put on the known-exploited catalog, or (`onlyFindings`) the findings a
// re-match just added whose vulnerability is listed already. Bounded per project in one statement: each project's
// first `perProject` findings (most severe first) and its whole count, never every row. Raw SQL (ADR 5): window
// functions over the newest snapshots, which the ORM cannot express.
import type { EntityManager } from "@mikro-orm/postgresql";
import { column, rawQuery } from "@sca/db";
import { OPEN_STATES } from "../../domain/vulnerability-sla.ts";
import { COMPONENT_ROWS, LATEST_SNAPSHOTS } from "../inventory/relations.ts";
import { ACTIVE_PROJECT_ROWS } from "../projects.ts";

export interface KevTouchedFinding {
  projectId: string;
  teamId: string;
  scanId: string;
  /** The project's open findings the listing touched, all of them (the rows are at most `perProject`). */
  touchedCount: number;
  findingId: string;
  vulnerabilityId: string;
  severity: string;
  componentName: string;
  componentVersion: string | null;
  purl: string | null;
  kevDueDate: string;
}

export async function openFindingsKevListed(
  em: EntityManager,
  vulnerabilityIds: readonly string[],
  perProject: number,
  onlyFindings?: readonly string[],
): Promise<KevTouchedFinding[]> {
  if (vulnerabilityIds.length === 0 || onlyFindings?.length === 0) return [];
  return rawQuery(
    em,
    `select * from (
       select f.project_id, p.team_id, f.scan_id, f.id as finding_id, f.vulnerability_id, v.severity,
         c.name as component_name, c.version as component_version, c.purl, v.kev_due_date,
         count(*) over (partition by f.project_id) as touched_count,
         row_number() over (partition by f.project_id order by v.severity_rank desc, f.vulnerability_id, c.name, f.id) as n
       from vulnerability_findings f
       join vulnerabilities v on v.id = f.vulnerability_id
       join finding_triage t on t.project_id = f.project_id and t.component_key = f.component_key
         and t.vulnerability_id = f.vulnerability_id
       join (${COMPONENT_ROWS}) c on c.id = f.component_row_id
       join (${ACTIVE_PROJECT_ROWS}) p on p.id = f.project_id
       where f.vulnerability_id in (select jsonb_array_elements_text(?::jsonb)) and f.removed_at is null
         and v.known_exploited
         ${onlyFindings ? "and f.id in (select value::uuid from jsonb_array_elements_text(?::jsonb))" : ""}
         and f.scan_id in (${LATEST_SNAPSHOTS})
         and t.status in (select jsonb_array_elements_text(?::jsonb))
     ) touched
     where n <= ?
     order by project_id, n`,
    [
      JSON.stringify(vulnerabilityIds),
      ...(onlyFindings ? [JSON.stringify(onlyFindings)] : []),
      JSON.stringify(OPEN_STATES),
      perProject,
    ],
    {
      projectId: column.text,
      teamId: column.text,
      scanId: column.text,
      touchedCount: column.integer,
      findingId: column.text,
      vulnerabilityId: column.text,
      severity: column.text,
      componentName: column.text,
      componentVersion: column.text.nullable,
      purl: column.text.nullable,
      kevDueDate: column.text,
    },
  );
}

/**
 * The open findings of every active project's newest snapshot on a known-exploited vulnerability: the KEV panel's
 * kev_flagged_total. One count over the newest snapshots' findings (the same rows the finding lists show).
 */
export async function countOpenKevFindings(em: EntityManager): Promise<number> {
  const [row] = await rawQuery(
    em,
    `select count(*) as total
       from vulnerability_findings f
       join vulnerabilities v on v.id = f.vulnerability_id and v.known_exploited
       join finding_triage t on t.project_id = f.project_id and t.component_key = f.component_key
         and t.vulnerability_id = f.vulnerability_id
       join (${ACTIVE_PROJECT_ROWS}) p on p.id = f.project_id
      where f.removed_at is null
        and f.scan_id in (${LATEST_SNAPSHOTS})
        and t.status in (select jsonb_array_elements_text(?::jsonb))`,
    [JSON.stringify(OPEN_STATES)],
    { total: column.integer },
  );
  return row?.total ?? 0;
}
