// What the SBOM export reads: the snapshot's facts, its components a page at a time in key order (keyset on the
// (scan_id, key) unique index), and the edges of each page with their targets' keys. Nothing holds a whole
// snapshot: memory stays bounded by the page size, whatever the number of components. Raw SQL (ADR 5) only for the
// edges joined to their targets' keys (the entities carry no relations).
import { QueryOrder, type EntityManager } from "@mikro-orm/postgresql";
import { column, rawQuery, SNAPSHOT } from "@sca/db";
import type { SbomComponentRow, SbomEdgeTarget } from "../../domain/sbom-export/index.ts";
import {
  InventoryComponent,
  InventorySnapshot,
  type InventoryComponentRow,
  type InventorySnapshotRow,
} from "../entities/inventory.ts";

export type SnapshotForExport = Pick<
  InventorySnapshotRow,
  | "scanId"
  | "release"
  | "format"
  | "specVersion"
  | "documentName"
  | "primaryComponentName"
  | "primaryComponentVersion"
  | "primaryComponentPurl"
  | "componentCount"
  | "edgeCount"
  | "ingestedAt"
>;

export async function snapshotForExport(em: EntityManager, scanId: string): Promise<SnapshotForExport | null> {
  return em.findOne(
    InventorySnapshot,
    { scanId },
    {
      ...SNAPSHOT,
      fields: [
        "scanId",
        "release",
        "format",
        "specVersion",
        "documentName",
        "primaryComponentName",
        "primaryComponentVersion",
        "primaryComponentPurl",
        "componentCount",
        "edgeCount",
        "ingestedAt",
      ],
    },
  );
}

export async function hasComponentKey(em: EntityManager, scanId: string, key: string): Promise<boolean> {
  return (await em.count(InventoryComponent, { scanId, key })) > 0;
}

const EXPORT_FIELDS = [
  "id",
  "componentId",
  "key",
  "type",
  "groupName",
  "name",
  "version",
  "purl",
  "cpe",
  "hashes",
  "declaredLicense",
  "concludedLicense",
  "licenseIds",
  "supplier",
  "author",
  "description",
  "dependencyScope",
] as const;

/** Every component of the snapshot, `size` at a time, in key order. */
export async function* componentPagesByKey(
  em: EntityManager,
  scanId: string,
  size: number,
): AsyncGenerator<SbomComponentRow[]> {
  let after: string | null = null;
  for (;;) {
    const rows: Pick<InventoryComponentRow, (typeof EXPORT_FIELDS)[number]>[] = await em.find(
      InventoryComponent,
      after === null ? { scanId } : { scanId, key: { $gt: after } },
      {
        ...SNAPSHOT,
        fields: [...EXPORT_FIELDS],
        orderBy: { key: QueryOrder.ASC },
        limit: size,
      },
    );
    if (!rows.length) return;
    yield rows.map((r) => ({
      id: r.id,
      componentId: r.componentId,
      key: r.key,
      type: r.type,
      group: r.groupName,
      name: r.name,
      version: r.version,
      purl: r.purl,
      cpe: r.cpe,
      hashes: r.hashes,
      declaredLicense: r.declaredLicense,
      concludedLicense: r.concludedLicense,
      licenseIds: r.licenseIds,
      supplier: r.supplier,
      author: r.author,
      description: r.description,
      dependencyScope: r.dependencyScope,
    }));
    if (rows.length < size) return;
    after = rows[rows.length - 1]!.key;
  }
}

const EDGE_COLUMNS = {
  fromComponentId: column.text.nullable,
  componentId: column.text,
  key: column.text,
  scope: column.text.nullable,
};

const EDGES_SQL = `
  select e.from_component_id, t.component_id, t.key, e.scope
    from inventory_edges e
    join inventory_components t on t.id = e.to_component_id
   where e.scan_id = ? and`;

/** The outgoing edges of these components (row ids), per component, each list in target key order. */
export async function edgesFrom(
  em: EntityManager,
  scanId: string,
  fromIds: string[],
): Promise<Map<string, SbomEdgeTarget[]>> {
  const out = new Map<string, SbomEdgeTarget[]>();
  if (!fromIds.length) return out;
  const rows = await rawQuery(
    em,
    `${EDGES_SQL} e.from_component_id = any(?::uuid[]) order by e.from_component_id, t.key`,
    [scanId, `{${fromIds.join(",")}}`],
    EDGE_COLUMNS,
  );
  for (const r of rows) {
    const list = out.get(r.fromComponentId!) ?? [];
    list.push({ componentId: r.componentId, key: r.key, scope: r.scope });
    out.set(r.fromComponentId!, list);
  }
  return out;
}

/** The root's edges (from the primary component), in target key order. */
export async function rootEdges(em: EntityManager, scanId: string): Promise<SbomEdgeTarget[]> {
  const rows = await rawQuery(em, `${EDGES_SQL} e.from_component_id is null order by t.key`, [scanId], EDGE_COLUMNS);
  return rows.map((r) => ({ componentId: r.componentId, key: r.key, scope: r.scope }));
}
