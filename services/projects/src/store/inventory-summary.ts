// The project's inventory summaries (license_category_summary, severity_summary): counted from the components of
// its newest snapshot only, one project at a time, whenever its snapshots change (an ingestion, a deletion). Never
// a recount of the portfolio: Dependency-Track's portfolio-wide metric updates are the lesson.
import type { EntityManager } from "@mikro-orm/postgresql";
import { rawStatement, type BulkTransaction } from "@sca/db";
import { UNCATEGORIZED } from "../domain/scan-feed.ts";

// The newest snapshot is the component list's default anchor (store/inventory-reads.ts newestSnapshot): the
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
