// Counts over one snapshot's components. The project's inventory summaries (license_category_summary,
// severity_summary) are counted from its newest snapshot only, one project at a time, whenever its snapshots change
// (an ingestion, a deletion); the overview counts the anchored snapshot when asked. Never a recount of the
// portfolio: Dependency-Track's portfolio-wide metric updates are the lesson.
import type { EntityManager } from "@mikro-orm/postgresql";
import { column, rawQuery, rawStatement, type BulkTransaction } from "@sca/db";
import type { ComponentGroup } from "../domain/project-overview.ts";
import { UNCATEGORIZED } from "../domain/scan-feed.ts";

// The newest snapshot is the component list's default anchor (store/inventory/snapshots.ts newestSnapshot): the
// summaries count what the list shows. Both parameters are the project id. `?` placeholders (rawStatement's);
// the bulk transaction numbers them.
const RECOUNT = `with newest as (
    select scan_id from inventory_snapshots where project_id = ? order by ingested_at desc, scan_id desc limit 1),
  categories as (
    select coalesce(license_category, '${UNCATEGORIZED}') as k, count(*) as n
    from inventory_components where scan_id in (select scan_id from newest) group by 1),
  severities as (
    select severity_max as k, count(*) as n
    from inventory_components where scan_id in (select scan_id from newest) and severity_max is not null group by 1)
  update projects set
    license_category_summary = coalesce((select jsonb_object_agg(k, n) from categories), '{}'::jsonb),
    severity_summary = coalesce((select jsonb_object_agg(k, n) from severities), '{}'::jsonb)
  where id = ?`;

const NUMBERED = (() => {
  let n = 0;
  return RECOUNT.replace(/\?/g, () => `$${++n}`);
})();

/** Recounts the project's summaries inside the consumer's (or any EntityManager's) transaction. */
export async function recountInventorySummary(em: EntityManager, projectId: string): Promise<void> {
  await rawStatement(em, RECOUNT, [projectId, projectId]);
}

/** The same, inside an ingestion's bulk transaction. */
export async function recountInventorySummaryIn(tx: BulkTransaction, projectId: string): Promise<void> {
  await tx.statement(NUMBERED, [projectId, projectId]);
}

/** The snapshot's components counted by the columns the overview reads (a few dozen groups at most). */
export async function componentGroups(em: EntityManager, scanId: string): Promise<ComponentGroup[]> {
  return rawQuery(
    em,
    `select severity_max, license_category, eol_state, currency_state, malicious_state, count(*) as count
     from inventory_components where scan_id = ?
     group by severity_max, license_category, eol_state, currency_state, malicious_state`,
    [scanId],
    {
      severityMax: column.text.nullable,
      licenseCategory: column.text.nullable,
      eolState: column.text.nullable,
      currencyState: column.text.nullable,
      maliciousState: column.text.nullable,
      count: column.integer,
    },
  );
}
