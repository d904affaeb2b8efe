// Reading the inventory: the one module that reads inventory_snapshots and inventory_components for the API.
// Which snapshot (the anchor) and which rows (filter, sort, window) were decided in domain/component-list.ts.
import { QueryOrder, type EntityManager, type FilterQuery, type QueryOrderMap } from "@mikro-orm/postgresql";
import { containsPattern, SNAPSHOT } from "@sca/db";
import type { ComponentFilter, ComponentWindow, SortKey } from "../domain/component-list.ts";
import { InventoryComponent, InventorySnapshot, type InventoryComponentRow } from "./entities/inventory.ts";

export type { InventoryComponentRow } from "./entities/inventory.ts";

/** A component as the list and the export read it: without raw_data. */
export type ComponentListRow = Omit<InventoryComponentRow, "rawData" | "severityRank">;

/** The snapshot of the scan when it is one of the project's. */
export async function snapshotOfScan(em: EntityManager, projectId: string, scanId: string): Promise<string | null> {
  const row = await em.findOne(InventorySnapshot, { scanId, projectId }, { ...SNAPSHOT, fields: ["scanId"] });
  return row?.scanId ?? null;
}

/** The newest snapshot of the project, carrying `release` when given. */
export async function newestSnapshot(em: EntityManager, projectId: string, release?: string): Promise<string | null> {
  const row = await em.findOne(InventorySnapshot, release === undefined ? { projectId } : { projectId, release }, {
    ...SNAPSHOT,
    fields: ["scanId"],
    orderBy: { ingestedAt: QueryOrder.DESC, scanId: QueryOrder.DESC },
  });
  return row?.scanId ?? null;
}

type Where = FilterQuery<InventoryComponentRow>;

function whereOf(scanId: string, f: ComponentFilter): Where {
  const and: Where[] = [{ scanId }];
  if (f.search) {
    const pattern = containsPattern(f.search);
    and.push({ $or: [{ name: { $ilike: pattern } }, { purl: { $ilike: pattern } }] });
  }
  if (f.severity) and.push({ severityMax: { $in: f.severity } });
  if (f.licenseCategory) and.push({ licenseCategory: { $in: f.licenseCategory } });
  if (f.direct !== undefined) and.push({ direct: f.direct });
  if (f.dependencyScope) {
    const named = f.dependencyScope.filter((s) => s !== "unspecified");
    const or: Where[] = [];
    if (named.length) or.push({ dependencyScope: { $in: named } });
    if (f.dependencyScope.includes("unspecified")) or.push({ dependencyScope: null });
    // Only unknown values were named: nothing matches.
    and.push(or.length ? { $or: or } : { id: null });
  }
  if (f.eol !== undefined)
    and.push(f.eol ? { eolState: "eol" } : { $or: [{ eolState: null }, { eolState: { $ne: "eol" } }] });
  if (f.outdated !== undefined) {
    const outdated: Where = { currencyState: { $nin: ["current", "unknown"], $ne: null } };
    and.push(
      f.outdated ? outdated : { $or: [{ currencyState: null }, { currencyState: { $in: ["current", "unknown"] } }] },
    );
  }
  if (f.malicious !== undefined)
    and.push(
      f.malicious
        ? { maliciousState: "flagged" }
        : { $or: [{ maliciousState: null }, { maliciousState: { $ne: "flagged" } }] },
    );
  return { $and: and };
}

const SORT_COLUMN = { name: "name", severity: "severityRank", license: "license" } as const;

function orderOf(keys: SortKey[]): QueryOrderMap<InventoryComponentRow>[] {
  const order: QueryOrderMap<InventoryComponentRow>[] = keys.map((k) => ({
    [SORT_COLUMN[k.field]]: k.descending ? QueryOrder.DESC : QueryOrder.ASC,
  }));
  // Ties end in name then id, ascending, so every page is stable.
  if (!keys.some((k) => k.field === "name")) order.push({ name: QueryOrder.ASC });
  order.push({ id: QueryOrder.ASC });
  return order;
}

/** The list's fields: every column but raw_data (the detail's). */
const LIST_FIELDS = [
  "id",
  "scanId",
  "projectId",
  "componentId",
  "key",
  "bomRefs",
  "type",
  "groupName",
  "name",
  "version",
  "purl",
  "cpe",
  "hashes",
  "declaredLicense",
  "concludedLicense",
  "license",
  "licenseIds",
  "supplier",
  "author",
  "description",
  "direct",
  "depth",
  "dependencyScope",
  "severityMax",
  "licenseCategory",
  "currencyState",
  "eolState",
  "maliciousState",
  "createdAt",
  "updatedAt",
] as const;

export async function listComponents(
  em: EntityManager,
  scanId: string,
  filter: ComponentFilter,
  sort: SortKey[],
  window: ComponentWindow,
): Promise<{ rows: ComponentListRow[]; total: number }> {
  const [rows, total] = await em.findAndCount(InventoryComponent, whereOf(scanId, filter), {
    ...SNAPSHOT,
    fields: [...LIST_FIELDS],
    orderBy: orderOf(sort),
    limit: window.limit,
    offset: window.offset,
  });
  return { rows, total };
}

/** Every matching row, `chunk` at a time, walking (name, id). */
export async function* exportComponents(
  em: EntityManager,
  scanId: string,
  filter: ComponentFilter,
  chunk: number,
): AsyncGenerator<ComponentListRow[]> {
  const where = whereOf(scanId, filter);
  let after: { name: string; id: string } | null = null;
  for (;;) {
    const page: ComponentListRow[] = await em.find(
      InventoryComponent,
      after
        ? { $and: [where, { $or: [{ name: { $gt: after.name } }, { name: after.name, id: { $gt: after.id } }] }] }
        : where,
      {
        ...SNAPSHOT,
        fields: [...LIST_FIELDS],
        orderBy: [{ name: QueryOrder.ASC }, { id: QueryOrder.ASC }],
        limit: chunk,
      },
    );
    if (page.length === 0) return;
    yield page;
    if (page.length < chunk) return;
    const last = page[page.length - 1]!;
    after = { name: last.name, id: last.id };
    em.clear();
  }
}

export async function componentOfSnapshot(
  em: EntityManager,
  scanId: string,
  componentId: string,
): Promise<InventoryComponentRow | null> {
  return em.findOne(InventoryComponent, { scanId, componentId }, SNAPSHOT);
}
