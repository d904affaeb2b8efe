// What vulnerability matching reads and writes of a snapshot's components (docs/findings.md, "Recording verdicts"):
// the rows it matches, and each row's severity_max from its open findings. Raw SQL (ADR 5): plain rows of a whole
// snapshot, and one set-based update over the rows whose severity changes.
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

export async function matchableComponents(em: EntityManager, scanId: string): Promise<MatchableComponent[]> {
  return rawQuery(em, "select id, component_id, key, purl from inventory_components where scan_id = ?", [scanId], {
    id: column.text,
    componentId: column.text,
    key: column.text,
    purl: column.text.nullable,
  });
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
