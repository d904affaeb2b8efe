// What vulnerability matching reads and writes of a snapshot's components (docs/findings.md, "Recording verdicts"):
// the rows it matches, and each row's severity_max from its open findings. Raw SQL (ADR 5): plain rows of a snapshot a
// page at a time, and one set-based update over the rows whose severity changes.
import type { EntityManager } from "@mikro-orm/postgresql";
import { column, rawQuery, rawStatement } from "@sca/db";
import { SEVERITY_RANK } from "../../domain/component-list.ts";
import { OPEN_FINDINGS, VULNERABILITY_SEVERITY_RANKS } from "../findings/relations.ts";

/** A component of a snapshot as matching needs it. */
export interface MatchableComponent {
  id: string;
  componentId: string;
  key: string;
  purl: string | null;
}

const MATCHABLE_COLUMNS = { id: column.text, componentId: column.text, key: column.text, purl: column.text.nullable };

/** The snapshot's components, `size` at a time, by (name, id): the (scan_id, name, id) index walked as a keyset. */
export async function* matchableComponentPages(
  em: EntityManager,
  scanId: string,
  size: number,
): AsyncGenerator<MatchableComponent[]> {
  let after: { name: string; id: string } | null = null;
  for (;;) {
    const rows: (MatchableComponent & { name: string })[] = await rawQuery(
      em,
      `select id, component_id, key, purl, name from inventory_components
       where scan_id = ?${after ? " and (name, id) > (?, ?::uuid)" : ""} order by name, id limit ?`,
      after ? [scanId, after.name, after.id, size] : [scanId, size],
      { ...MATCHABLE_COLUMNS, name: column.text },
    );
    if (rows.length === 0) return;
    yield rows;
    if (rows.length < size) return;
    const last = rows[rows.length - 1]!;
    after = { name: last.name, id: last.id };
  }
}

const SEVERITY_OF_RANK = `case r ${Object.entries(SEVERITY_RANK)
  .map(([severity, rank]) => `when ${rank} then '${severity}'`)
  .join(" ")} end`;

/**
 * severity_max (and its rank) of the scan's components, or of the named component rows: the worst severity of their
 * open findings; null (rank 0) without any. Only rows whose value changes are written.
 */
export async function recomputeSeverity(
  em: EntityManager,
  which: { scanId: string } | { componentRowIds: string[] },
): Promise<void> {
  const bySnapshot = "scanId" in which;
  if (!bySnapshot && which.componentRowIds.length === 0) return;
  await rawStatement(
    em,
    `with target as (
       select c.id from inventory_components c
       where ${bySnapshot ? "c.scan_id = ?" : "c.id in (select value::uuid from jsonb_array_elements_text(?::jsonb))"}),
     worst as (
       select t.id, coalesce(max(v.severity_rank), 0) as r
       from target t
       left join (${OPEN_FINDINGS}) f on f.component_row_id = t.id
       left join (${VULNERABILITY_SEVERITY_RANKS}) v on v.id = f.vulnerability_id
       group by t.id)
     update inventory_components c set severity_rank = w.r, severity_max = ${SEVERITY_OF_RANK}, updated_at = now()
     from worst w
     where c.id = w.id and (c.severity_rank, c.severity_max) is distinct from (w.r::smallint, ${SEVERITY_OF_RANK})`,
    [bySnapshot ? which.scanId : JSON.stringify(which.componentRowIds)],
  );
}
