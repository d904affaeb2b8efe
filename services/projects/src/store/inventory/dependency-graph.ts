// The dependency graph of a snapshot (domain/dependency-graph.ts): its first components in breadth-first order and
// the edges between them. Raw SQL (ADR 5): plain rows of thousands of components (hydrating 5000 entities cost the
// ORM about a second) and a hash join of the edges against the kept rows.
import type { EntityManager } from "@mikro-orm/postgresql";
import { column, rawQuery, type Column } from "@sca/db";
import type { GraphEdgeRow } from "../../domain/dependency-graph.ts";
import type { InventoryComponentRow } from "../entities/inventory.ts";

/** A node of the dependency graph: the list's cheap columns. */
export type GraphNodeRow = Pick<
  InventoryComponentRow,
  | "id"
  | "componentId"
  | "name"
  | "version"
  | "purl"
  | "type"
  | "groupName"
  | "direct"
  | "depth"
  | "dependencyScope"
  | "license"
  | "licenseCategory"
  | "severityMax"
>;

/**
 * The first `cap` components of the snapshot in breadth-first order from the root (domain/dependency-graph.ts):
 * by depth, unreached ones last, then name, then id. PostgreSQL keeps the top `cap` rows, nothing more reaches us.
 */
export async function graphNodes(em: EntityManager, scanId: string, cap: number): Promise<GraphNodeRow[]> {
  return rawQuery(
    em,
    `select id, component_id, name, version, purl, type, group_name, direct, depth, dependency_scope, license,
            license_category, severity_max
       from inventory_components where scan_id = ?
      order by depth asc nulls last, name asc, id asc
      limit ?`,
    [scanId, cap],
    {
      id: column.text,
      componentId: column.text,
      name: column.text,
      version: column.text.nullable,
      purl: column.text.nullable,
      type: column.text.nullable,
      groupName: column.text.nullable,
      direct: column.boolean.nullable,
      depth: column.integer.nullable,
      dependencyScope: column.text.nullable as Column<"required" | "optional" | null>,
      license: column.text.nullable,
      licenseCategory: column.text.nullable,
      severityMax: column.text.nullable,
    },
  );
}

/** The snapshot's edges whose target is one of `rowIds` and whose source is the root or one of them. */
export async function graphEdges(
  em: EntityManager,
  scanId: string,
  rowIds: readonly string[],
): Promise<GraphEdgeRow[]> {
  if (rowIds.length === 0) return [];
  const kept = `{${rowIds.join(",")}}`;
  // Hash joins against the kept rows: `= any(array)` would scan the array once per edge.
  return rawQuery(
    em,
    `with kept as (select unnest(?::uuid[]) as id)
     select e.from_component_id as from_id, e.to_component_id as to_id, e.scope
       from inventory_edges e
       join kept t on t.id = e.to_component_id
       left join kept f on f.id = e.from_component_id
      where e.scan_id = ? and (e.from_component_id is null or f.id is not null)
      order by e.from_component_id nulls first, e.to_component_id`,
    [kept, scanId],
    { fromId: column.text.nullable, toId: column.text, scope: column.text.nullable },
  );
}
