// Counts over one snapshot's components. The project's inventory summaries (license_category_summary,
// severity_summary) are counted from its newest snapshot only, one project at a time, whenever its snapshots change
// (an ingestion, a deletion, a match, a re-categorisation); the overview counts the anchored snapshot when asked.
// Never a recount of the portfolio: Dependency-Track's portfolio-wide metric updates are the lesson. Raw SQL
// (ADR 5): grouped counts, which PostgreSQL computes without sending the rows.
import type { EntityManager } from "@mikro-orm/postgresql";
import { column, rawQuery } from "@sca/db";
import type { ComponentGroup } from "../../domain/project-overview.ts";
import { UNCATEGORIZED } from "../../domain/scan-feed.ts";

/**
 * The summaries of the project's newest snapshot as one row of two jsonb objects, license_category_summary and
 * severity_summary, which store/projects.ts writes on the project (ADR 9). The newest snapshot is the component
 * list's default anchor (snapshots.ts newestSnapshot): the summaries count what the list shows. `projectId` is the
 * SQL naming the project: a `?` parameter, or a column of the statement around it.
 */
export const inventorySummaryOf = (projectId: string) => `with newest as (
    select scan_id from inventory_snapshots where project_id = ${projectId} order by ingested_at desc, scan_id desc limit 1),
  categories as (
    select coalesce(license_category, '${UNCATEGORIZED}') as k, count(*) as n
    from inventory_components where scan_id in (select scan_id from newest) group by 1),
  severities as (
    select severity_max as k, count(*) as n
    from inventory_components where scan_id in (select scan_id from newest) and severity_max is not null group by 1)
  select coalesce((select jsonb_object_agg(k, n) from categories), '{}'::jsonb) as license_category_summary,
    coalesce((select jsonb_object_agg(k, n) from severities), '{}'::jsonb) as severity_summary`;

/** The snapshot's components counted by the columns the overview reads (a few dozen groups at most). */
export async function componentGroups(em: EntityManager, scanId: string): Promise<ComponentGroup[]> {
  return (await componentGroupsOf(em, [scanId])).get(scanId) ?? [];
}

/** The same for several snapshots in one statement, by scan id. */
export async function componentGroupsOf(
  em: EntityManager,
  scanIds: readonly string[],
): Promise<Map<string, ComponentGroup[]>> {
  const rows = await rawQuery(
    em,
    `select scan_id, severity_max, license_category, eol_state, currency_state, malicious_state, count(*) as count
     from inventory_components where scan_id in (select value::uuid from jsonb_array_elements_text(?::jsonb))
     group by scan_id, severity_max, license_category, eol_state, currency_state, malicious_state`,
    [JSON.stringify(scanIds)],
    {
      scanId: column.text,
      severityMax: column.text.nullable,
      licenseCategory: column.text.nullable,
      eolState: column.text.nullable,
      currencyState: column.text.nullable,
      maliciousState: column.text.nullable,
      count: column.integer,
    },
  );
  const groups = new Map<string, ComponentGroup[]>();
  for (const { scanId, ...group } of rows) groups.set(scanId, [...(groups.get(scanId) ?? []), group]);
  return groups;
}
