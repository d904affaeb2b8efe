// The component list of a snapshot (docs/inventory.md): a page and its total (ListComponents, as rows or as the REST
// API's JSON), every matching row (ExportComponents) and one row with raw_data (GetComponent). Which snapshot and
// which rows (filter, sort, window) were decided in domain/component-list.ts.
// Raw SQL (ADR 5) for the pages: PostgreSQL writes each row's JSON and counts the matches beside the page, which the
// ORM cannot; the filter is translated to SQL once, here, and the page and the export both read it.
import type { EntityManager } from "@mikro-orm/postgresql";
import { column, containsPattern, rawQuery, SNAPSHOT, type Column, type Columns, type RowOf } from "@sca/db";
import type { ComponentFilter, ComponentWindow, SortKey } from "../../domain/component-list.ts";
import { InventoryComponent, type InventoryComponentRow } from "../entities/inventory.ts";
import { COMPONENT_JSON_SQL } from "./component-json.ts";
import type { SnapshotRef } from "./snapshots.ts";

export type { InventoryComponentRow } from "../entities/inventory.ts";

/** A component as the list and the export read it: without raw_data. */
export type ComponentListRow = Omit<InventoryComponentRow, "rawData" | "severityRank">;

/** The list's columns (every one but raw_data, the detail's), typed as the entity types them. */
const LIST_COLUMNS: { [K in keyof ComponentListRow & string]-?: Column<ComponentListRow[K]> } = {
  id: column.text,
  scanId: column.text,
  projectId: column.text,
  componentId: column.text,
  key: column.text,
  bomRefs: column.json<string[]>(),
  type: column.text.nullable,
  groupName: column.text.nullable,
  name: column.text,
  version: column.text.nullable,
  purl: column.text.nullable,
  cpe: column.text.nullable,
  hashes: column.json<ComponentListRow["hashes"]>(),
  declaredLicense: column.text.nullable,
  concludedLicense: column.text.nullable,
  license: column.text.nullable,
  licenseIds: column.json<string[]>(),
  supplier: column.text.nullable,
  author: column.text.nullable,
  description: column.text.nullable,
  direct: column.boolean.nullable,
  depth: column.integer.nullable,
  dependencyScope: column.text.nullable as Column<ComponentListRow["dependencyScope"]>,
  severityMax: column.text.nullable,
  licenseCategory: column.text.nullable,
  currencyState: column.text.nullable,
  eolState: column.text.nullable,
  maliciousState: column.text.nullable,
  eolCycle: column.text.nullable,
  eolDate: column.text.nullable,
  eolProduct: column.text.nullable,
  eolSource: column.text.nullable,
  currencyLatest: column.text.nullable,
  currencyLatestReleaseDate: column.text.nullable,
  maliciousId: column.text.nullable,
  maliciousSource: column.text.nullable,
  createdAt: column.timestamp,
  updatedAt: column.timestamp,
};

const LIST_SELECT = Object.keys(LIST_COLUMNS)
  .map((f) => f.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`))
  .join(", ");

const SORT_COLUMN = { name: "name", severity: "severity_rank", license: "license" } as const;

/** The filter as SQL over inventory_components, with its parameters (`?`). */
function filterSql(scanId: string, f: ComponentFilter): { sql: string; params: unknown[]; filtered: boolean } {
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

function orderSql(keys: SortKey[]): string {
  const order = keys.map((k) => `${SORT_COLUMN[k.field]} ${k.descending ? "desc" : "asc"}`);
  // Ties end in name then id, ascending, so every page is stable.
  if (!keys.some((k) => k.field === "name")) order.push("name asc");
  order.push("id asc");
  return order.join(", ");
}

/**
 * One page of the snapshot's components and the total that match, in one query: without a filter the total is
 * the snapshot's component_count, with one it is counted alongside the page (count(*) over ()), so the rows are
 * matched once.
 */
export async function listComponents(
  em: EntityManager,
  snapshot: SnapshotRef,
  filter: ComponentFilter,
  sort: SortKey[],
  window: ComponentWindow,
): Promise<{ rows: ComponentListRow[]; total: number }> {
  return matchedPage(em, snapshot, filter, sort, window, (page) => page(LIST_SELECT), LIST_COLUMNS);
}

/**
 * The same page as listComponents, each row as the REST API's Component resource in JSON (component-json.ts).
 * The page is found by id first and only its rows are written out: PostgreSQL projects every row an offset skips,
 * so writing JSON in the paging query built 5,050 objects for `offset=5000&limit=50`.
 */
export async function listComponentsJson(
  em: EntityManager,
  snapshot: SnapshotRef,
  filter: ComponentFilter,
  sort: SortKey[],
  window: ComponentWindow,
): Promise<{ rows: string[]; total: number }> {
  const { rows, total } = await matchedPage(
    em,
    snapshot,
    filter,
    sort,
    window,
    (page, order, counted) =>
      `select ${COMPONENT_JSON_SQL} as "json"${counted ? `, p."matchedTotal"` : ""}
          from inventory_components join (${page("id")}) p using (id) order by ${order}`,
    { json: column.text },
  );
  return { rows: rows.map((r) => r.json), total };
}

/** `statement` selects the page's rows from `page(columns)`, the filtered, sorted and windowed select. */
async function matchedPage<C extends Columns>(
  em: EntityManager,
  snapshot: SnapshotRef,
  filter: ComponentFilter,
  sort: SortKey[],
  window: ComponentWindow,
  statement: (page: (columns: string) => string, order: string, counted: boolean) => string,
  columns: C,
): Promise<{ rows: RowOf<C>[]; total: number }> {
  const where = filterSql(snapshot.scanId, filter);
  const order = orderSql(sort);
  const counted = where.filtered ? `, count(*) over () as "matchedTotal"` : "";
  const page = (select: string) =>
    `select ${select}${counted} from inventory_components where ${where.sql} order by ${order} limit ? offset ?`;
  const sql = statement(page, order, where.filtered);
  const params = [...where.params, window.limit, window.offset];
  if (!where.filtered) return { rows: await rawQuery(em, sql, params, columns), total: snapshot.componentCount };
  const withTotal = { ...columns, matchedTotal: column.integer };
  const rows = (await rawQuery(em, sql, params, withTotal)) as unknown as (RowOf<C> & { matchedTotal?: number })[];
  if (rows.length > 0) {
    const total = rows[0]!.matchedTotal!;
    for (const row of rows) delete row.matchedTotal;
    return { rows, total };
  }
  // A page past the end (or an empty match): counted on its own.
  if (window.offset === 0) return { rows, total: 0 };
  const [matched] = await rawQuery(
    em,
    `select count(*) as n from inventory_components where ${where.sql}`,
    where.params,
    {
      n: column.integer,
    },
  );
  return { rows, total: matched?.n ?? 0 };
}

/** Every matching row, `chunk` at a time, walking (name, id) by keyset (the list's (scan_id, name, id) index). */
export async function* exportComponents(
  em: EntityManager,
  scanId: string,
  filter: ComponentFilter,
  chunk: number,
): AsyncGenerator<ComponentListRow[]> {
  const where = filterSql(scanId, filter);
  let after: { name: string; id: string } | null = null;
  for (;;) {
    const page: ComponentListRow[] = await rawQuery(
      em,
      `select ${LIST_SELECT} from inventory_components
        where ${where.sql}${after ? " and (name, id) > (?, ?::uuid)" : ""}
        order by name asc, id asc limit ?`,
      [...where.params, ...(after ? [after.name, after.id] : []), chunk],
      LIST_COLUMNS,
    );
    if (page.length === 0) return;
    yield page;
    if (page.length < chunk) return;
    const last = page[page.length - 1]!;
    after = { name: last.name, id: last.id };
  }
}

export async function componentOfSnapshot(
  em: EntityManager,
  scanId: string,
  componentId: string,
): Promise<InventoryComponentRow | null> {
  return em.findOne(InventoryComponent, { scanId, componentId }, SNAPSHOT);
}
