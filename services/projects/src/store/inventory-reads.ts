// Reading the inventory: the one module that reads inventory_snapshots and inventory_components for the API.
// Which snapshot (the anchor) and which rows (filter, sort, window) were decided in domain/component-list.ts.
import { QueryOrder, type EntityManager, type FilterQuery } from "@mikro-orm/postgresql";
import { containsPattern, SNAPSHOT } from "@sca/db";
import type { ComponentFilter, ComponentWindow, SortKey } from "../domain/component-list.ts";
import { InventoryComponent, InventorySnapshot, type InventoryComponentRow } from "./entities/inventory.ts";

export type { InventoryComponentRow } from "./entities/inventory.ts";

/** A component as the list and the export read it: without raw_data. */
export type ComponentListRow = Omit<InventoryComponentRow, "rawData" | "severityRank">;

/** A snapshot the list reads: its scan and how many components it holds (the total of an unfiltered list). */
export interface SnapshotRef {
  scanId: string;
  componentCount: number;
}

export interface ProjectAndSnapshot {
  project: { id: string; teamId: string; organizationId: string | null; visibility: "team" | "organization" };
  snapshot: SnapshotRef | null;
}

/** The project's access scope and its newest snapshot, in one query; null when there is no such project. */
export async function projectWithNewestSnapshot(
  em: EntityManager,
  projectId: string,
): Promise<ProjectAndSnapshot | null> {
  const rows = await em.execute<
    {
      id: string;
      team_id: string;
      organization_id: string | null;
      visibility: "team" | "organization";
      scan_id: string | null;
      component_count: number | null;
    }[]
  >(
    `select p.id, p.team_id, p.organization_id, p.visibility, s.scan_id, s.component_count
       from projects p
       left join lateral (
         select scan_id, component_count from inventory_snapshots
          where project_id = p.id order by ingested_at desc, scan_id desc limit 1
       ) s on true
      where p.id = ?`,
    [projectId],
  );
  const row = rows[0];
  if (!row) return null;
  return {
    project: { id: row.id, teamId: row.team_id, organizationId: row.organization_id, visibility: row.visibility },
    snapshot: row.scan_id === null ? null : { scanId: row.scan_id, componentCount: row.component_count ?? 0 },
  };
}

/** The snapshot of the scan when it is one of the project's. */
export async function snapshotOfScan(
  em: EntityManager,
  projectId: string,
  scanId: string,
): Promise<SnapshotRef | null> {
  const row = await em.findOne(
    InventorySnapshot,
    { scanId, projectId },
    { ...SNAPSHOT, fields: ["scanId", "componentCount"] },
  );
  return row ? { scanId: row.scanId, componentCount: row.componentCount } : null;
}

/** The newest snapshot of the project, carrying `release` when given. */
export async function newestSnapshot(
  em: EntityManager,
  projectId: string,
  release?: string,
): Promise<SnapshotRef | null> {
  const row = await em.findOne(InventorySnapshot, release === undefined ? { projectId } : { projectId, release }, {
    ...SNAPSHOT,
    fields: ["scanId", "componentCount"],
    orderBy: { ingestedAt: QueryOrder.DESC, scanId: QueryOrder.DESC },
  });
  return row ? { scanId: row.scanId, componentCount: row.componentCount } : null;
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

/** The list's columns in SQL, named as ComponentListRow's fields. */
const LIST_COLUMNS = LIST_FIELDS.map((f) => {
  const column = f.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  return column === f ? f : `${column} as "${f}"`;
}).join(", ");

const SQL_SORT_COLUMN = { name: "name", severity: "severity_rank", license: "license" } as const;

/** The filter as SQL over inventory_components, with its parameters (`?`), the same rows as whereOf. */
function sqlWhereOf(scanId: string, f: ComponentFilter): { sql: string; params: unknown[]; filtered: boolean } {
  const and: string[] = ["scan_id = ?"];
  const params: unknown[] = [scanId];
  const list = (values: readonly unknown[]) => {
    params.push(...values);
    return values.map(() => "?").join(", ");
  };
  if (f.search) {
    const pattern = containsPattern(f.search);
    and.push("(name ilike ? or purl ilike ?)");
    params.push(pattern, pattern);
  }
  if (f.severity) and.push(f.severity.length ? `severity_max in (${list(f.severity)})` : "false");
  if (f.licenseCategory)
    and.push(f.licenseCategory.length ? `license_category in (${list(f.licenseCategory)})` : "false");
  if (f.direct !== undefined) {
    and.push("direct = ?");
    params.push(f.direct);
  }
  if (f.dependencyScope) {
    const named = f.dependencyScope.filter((s) => s !== "unspecified");
    const or: string[] = [];
    if (named.length) or.push(`dependency_scope in (${list(named)})`);
    if (f.dependencyScope.includes("unspecified")) or.push("dependency_scope is null");
    // Only unknown values were named: nothing matches.
    and.push(or.length ? `(${or.join(" or ")})` : "false");
  }
  if (f.eol !== undefined) and.push(f.eol ? "eol_state = 'eol'" : "(eol_state is null or eol_state <> 'eol')");
  if (f.outdated !== undefined)
    and.push(
      f.outdated
        ? "(currency_state not in ('current', 'unknown') and currency_state is not null)"
        : "(currency_state is null or currency_state in ('current', 'unknown'))",
    );
  if (f.malicious !== undefined)
    and.push(f.malicious ? "malicious_state = 'flagged'" : "(malicious_state is null or malicious_state <> 'flagged')");
  return { sql: and.join(" and "), params, filtered: and.length > 1 };
}

function sqlOrderOf(keys: SortKey[]): string {
  const order = keys.map((k) => `${SQL_SORT_COLUMN[k.field]} ${k.descending ? "desc" : "asc"}`);
  // Ties end in name then id, ascending, so every page is stable.
  if (!keys.some((k) => k.field === "name")) order.push("name asc");
  order.push("id asc");
  return order.join(", ");
}

// The driver answers timestamps as text and may answer jsonb as text: the rows get the types the entity declares.
const parsedJson = (value: unknown) => (typeof value === "string" ? (JSON.parse(value) as unknown) : value);
const parsedDate = (value: unknown) => (value instanceof Date ? value : new Date(value as string));

function plainRow(row: ComponentListRow & { matchedTotal?: string | number }): void {
  delete row.matchedTotal;
  row.createdAt = parsedDate(row.createdAt);
  row.updatedAt = parsedDate(row.updatedAt);
  row.bomRefs = parsedJson(row.bomRefs) as string[];
  row.hashes = parsedJson(row.hashes) as ComponentListRow["hashes"];
  row.licenseIds = parsedJson(row.licenseIds) as string[];
}

/**
 * One page of the snapshot's components and the total that match, in one query: without a filter the total is
 * the snapshot's component_count, with one it is counted alongside the page (count(*) over ()), so the rows are
 * matched once. Plain rows, not entities: nothing here is changed or tracked.
 */
export async function listComponents(
  em: EntityManager,
  snapshot: SnapshotRef,
  filter: ComponentFilter,
  sort: SortKey[],
  window: ComponentWindow,
): Promise<{ rows: ComponentListRow[]; total: number }> {
  const where = sqlWhereOf(snapshot.scanId, filter);
  const counted = where.filtered ? `, count(*) over () as "matchedTotal"` : "";
  const rows = await em.execute<(ComponentListRow & { matchedTotal?: string | number })[]>(
    `select ${LIST_COLUMNS}${counted} from inventory_components where ${where.sql}
      order by ${sqlOrderOf(sort)} limit ? offset ?`,
    [...where.params, window.limit, window.offset],
  );
  const total = where.filtered && rows.length > 0 ? Number(rows[0]!.matchedTotal) : snapshot.componentCount;
  for (const row of rows) plainRow(row);
  if (!where.filtered || rows.length > 0) return { rows, total };
  // A page past the end (or an empty match): counted on its own.
  if (window.offset === 0) return { rows, total: 0 };
  const [counted0] = await em.execute<{ n: string | number }[]>(
    `select count(*) as n from inventory_components where ${where.sql}`,
    where.params,
  );
  return { rows, total: Number(counted0?.n ?? 0) };
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
