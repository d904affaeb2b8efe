// Reading the inventory: the one module that reads inventory_snapshots and inventory_components for the API.
// Which snapshot (the anchor) and which rows (filter, sort, window) were decided in domain/component-list.ts.
import { QueryOrder, type EntityManager, type FilterQuery } from "@mikro-orm/postgresql";
import { column, containsPattern, preparedQuery, rawQuery, SNAPSHOT, type Column } from "@sca/db";
import type { ComponentFilter, ComponentWindow, SortKey } from "../domain/component-list.ts";
import { COMPONENT_JSON_SQL } from "./component-json.ts";
import type { GraphEdgeRow } from "../domain/dependency-graph.ts";
import type { DiffTotals } from "../domain/release-diff.ts";
import {
  InventoryComponent,
  InventorySnapshot,
  type InventoryComponentRow,
  type InventorySnapshotRow,
} from "./entities/inventory.ts";

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
  /**
   * With when it was ingested (the scan's success as projects knows it): the gate's `scanned_at`; and how many
   * writes its components have had (inventory_changes), the version a kept list page is valid for.
   */
  snapshot: (SnapshotRef & { ingestedAt: Date; changes: number }) | null;
}

/**
 * The project's access scope and its newest snapshot, in one query; null when there is no such project. Prepared:
 * every component list and gate verdict starts with it.
 */
export async function projectWithNewestSnapshot(
  em: EntityManager,
  projectId: string,
): Promise<ProjectAndSnapshot | null> {
  const [row] = await preparedQuery(
    em,
    "projects.project-with-newest-snapshot.v2",
    `select p.id, p.team_id, p.organization_id, p.visibility, s.scan_id, s.component_count, s.ingested_at,
            (select count(*) from inventory_changes c where c.scan_id = s.scan_id)::int as changes
       from projects p
       left join lateral (
         select scan_id, component_count, ingested_at from inventory_snapshots
          where project_id = p.id order by ingested_at desc, scan_id desc limit 1
       ) s on true
      where p.id = $1::uuid`,
    [projectId],
    {
      id: column.text,
      teamId: column.text,
      organizationId: column.text.nullable,
      visibility: column.text,
      scanId: column.text.nullable,
      componentCount: column.integer.nullable,
      ingestedAt: column.timestamp.nullable,
      changes: column.integer,
    },
  );
  if (!row) return null;
  return {
    project: {
      id: row.id,
      teamId: row.teamId,
      organizationId: row.organizationId,
      visibility: row.visibility as ProjectAndSnapshot["project"]["visibility"],
    },
    snapshot:
      row.scanId === null
        ? null
        : {
            scanId: row.scanId,
            componentCount: row.componentCount ?? 0,
            ingestedAt: row.ingestedAt!,
            changes: row.changes,
          },
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
  "eolCycle",
  "eolDate",
  "eolProduct",
  "eolSource",
  "currencyLatest",
  "currencyLatestReleaseDate",
  "maliciousId",
  "maliciousSource",
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
  const { rows, total } = await matchedPage<ComponentListRow>(em, snapshot, filter, sort, window, "columns");
  for (const row of rows) plainRow(row);
  return { rows, total };
}

/**
 * The same page as listComponents, each row as the REST API's Component resource in JSON (store/component-json.ts).
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
  const { rows, total } = await matchedPage<{ json: string }>(em, snapshot, filter, sort, window, "json");
  return { rows: rows.map((r) => r.json), total };
}

async function matchedPage<Row>(
  em: EntityManager,
  snapshot: SnapshotRef,
  filter: ComponentFilter,
  sort: SortKey[],
  window: ComponentWindow,
  form: "columns" | "json",
): Promise<{ rows: (Row & { matchedTotal?: string | number })[]; total: number }> {
  const where = sqlWhereOf(snapshot.scanId, filter);
  const counted = where.filtered ? `, count(*) over () as "matchedTotal"` : "";
  const order = sqlOrderOf(sort);
  const page = (columns: string) =>
    `select ${columns}${counted} from inventory_components where ${where.sql} order by ${order} limit ? offset ?`;
  const sql =
    form === "columns"
      ? page(LIST_COLUMNS)
      : `select ${COMPONENT_JSON_SQL} as "json"${where.filtered ? `, p."matchedTotal"` : ""}
          from inventory_components join (${page("id")}) p using (id) order by ${order}`;
  const rows = await em.execute<(Row & { matchedTotal?: string | number })[]>(sql, [
    ...where.params,
    window.limit,
    window.offset,
  ]);
  const total = where.filtered && rows.length > 0 ? Number(rows[0]!.matchedTotal) : snapshot.componentCount;
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

/** What the graph and the diff tell of a snapshot. */
export type SnapshotFacts = Pick<
  InventorySnapshotRow,
  | "scanId"
  | "ref"
  | "release"
  | "ingestedAt"
  | "componentCount"
  | "edgeCount"
  | "primaryComponentName"
  | "primaryComponentVersion"
  | "primaryComponentPurl"
>;

/** The facts of the scan's snapshot when it is one of the project's. */
export async function snapshotFacts(
  em: EntityManager,
  projectId: string,
  scanId: string,
): Promise<SnapshotFacts | null> {
  return em.findOne(
    InventorySnapshot,
    { scanId, projectId },
    {
      ...SNAPSHOT,
      fields: [
        "scanId",
        "ref",
        "release",
        "ingestedAt",
        "componentCount",
        "edgeCount",
        "primaryComponentName",
        "primaryComponentVersion",
        "primaryComponentPurl",
      ],
    },
  );
}

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
 * Plain rows through rawQuery: hydrating 5000 entities cost the ORM about a second.
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

/** A component as one side of the diff shows it. */
export interface DiffComponentRow {
  id: string;
  componentId: string;
  name: string;
  version: string | null;
  purl: string | null;
  type: string | null;
  groupName: string | null;
  license: string | null;
  direct: boolean | null;
  depth: number | null;
}

export interface ComponentDiffRows {
  added: DiffComponentRow[];
  removed: DiffComponentRow[];
  changed: { base: DiffComponentRow; target: DiffComponentRow }[];
}

export interface LicenseCountRow {
  licenseId: string;
  componentCount: number;
}

export interface DiffRows {
  components: ComponentDiffRows;
  licenses: { added: LicenseCountRow[]; removed: LicenseCountRow[] };
  totals: DiffTotals;
}

const SIDE_COLUMNS = [
  "id",
  "component_id",
  "name",
  "version",
  "purl",
  "type",
  "group_name",
  "license",
  "direct",
  "depth",
];
const sideColumns = (side: "b" | "t") => ({
  [`${side}Id`]: column.text.nullable,
  [`${side}ComponentId`]: column.text.nullable,
  [`${side}Name`]: column.text.nullable,
  [`${side}Version`]: column.text.nullable,
  [`${side}Purl`]: column.text.nullable,
  [`${side}Type`]: column.text.nullable,
  [`${side}GroupName`]: column.text.nullable,
  [`${side}License`]: column.text.nullable,
  [`${side}Direct`]: column.boolean.nullable,
  [`${side}Depth`]: column.integer.nullable,
});
const select = (alias: string | null, side: "b" | "t") =>
  SIDE_COLUMNS.map((c) => `${alias ? `${alias}.${c}` : "null"} as ${side}_${c}`).join(", ");

function sideOf(row: Record<string, unknown>, side: "b" | "t"): DiffComponentRow {
  const v = (name: string) => row[`${side}${name}`];
  return {
    id: v("Id") as string,
    componentId: v("ComponentId") as string,
    name: v("Name") as string,
    version: v("Version") as string | null,
    purl: v("Purl") as string | null,
    type: v("Type") as string | null,
    groupName: v("GroupName") as string | null,
    license: v("License") as string | null,
    direct: v("Direct") as boolean | null,
    depth: v("Depth") as number | null,
  };
}

/**
 * The component and license differences between two snapshots (domain/release-diff.ts), computed in PostgreSQL as
 * set differences over the two snapshots' rows: at most `cap` rows per list reach us (by name, then key), with
 * each list's whole count.
 */
export async function diffSnapshots(em: EntityManager, base: string, target: string, cap: number): Promise<DiffRows> {
  // The identity: the purl without its version (qualifiers and subpath kept), else type, group and name. The pattern
  // travels as a parameter: a literal `?` would read as a placeholder.
  const side = `select id, component_id, key, name, version, purl, type, group_name, license, direct, depth,
            case when purl is not null then regexp_replace(purl, ?, ?)
                 else 'component:' || coalesce(type, '') || '/' || coalesce(group_name, '') || '/' || name end
              as identity
       from inventory_components where scan_id = ?`;
  const purlVersion = ["^([^@?#]*)@[^?#]*", "\\1"];
  const rows = await rawQuery(
    em,
    `with b as (${side}), t as (${side}),
       b_only as (select * from b where not exists (select 1 from t where t.key = b.key)),
       t_only as (select * from t where not exists (select 1 from b where b.key = t.key)),
       paired as (
         select identity from b_only group by identity having count(*) = 1
         intersect
         select identity from t_only group by identity having count(*) = 1),
       diff as (
         select 'added' as kind, t.name as sort_name, t.key as sort_key, ${select(null, "b")}, ${select("t", "t")}
           from t_only t where t.identity not in (select identity from paired)
         union all
         select 'removed', b.name, b.key, ${select("b", "b")}, ${select(null, "t")}
           from b_only b where b.identity not in (select identity from paired)
         union all
         select 'changed', b.name, b.key, ${select("b", "b")}, ${select("t", "t")}
           from b_only b join t_only t on t.identity = b.identity
          where b.identity in (select identity from paired)
         union all
         select 'changed', b.name, b.key, ${select("b", "b")}, ${select("t", "t")}
           from b join t on t.key = b.key
          where b.license is distinct from t.license),
       ranked as (
         select diff.*, row_number() over (partition by kind order by sort_name, sort_key) as position,
                count(*) over (partition by kind) as total
           from diff)
     select * from ranked where position <= ? order by kind, position`,
    [...purlVersion, base, ...purlVersion, target, cap],
    { kind: column.text, total: column.integer, ...sideColumns("b"), ...sideColumns("t") },
  );
  const components: ComponentDiffRows = { added: [], removed: [], changed: [] };
  const totals: DiffTotals = {
    componentsAdded: 0,
    componentsRemoved: 0,
    componentsChanged: 0,
    licensesAdded: 0,
    licensesRemoved: 0,
  };
  for (const row of rows) {
    if (row.kind === "added") {
      components.added.push(sideOf(row, "t"));
      totals.componentsAdded = row.total;
    } else if (row.kind === "removed") {
      components.removed.push(sideOf(row, "b"));
      totals.componentsRemoved = row.total;
    } else {
      components.changed.push({ base: sideOf(row, "b"), target: sideOf(row, "t") });
      totals.componentsChanged = row.total;
    }
  }

  const licenseSide = `select lid as license_id, count(*) as component_count
       from inventory_components c cross join lateral jsonb_array_elements_text(c.license_ids) as lid
      where c.scan_id = ? group by lid`;
  const licenseRows = await rawQuery(
    em,
    `with b as (${licenseSide}), t as (${licenseSide}),
       diff as (
         select 'added' as kind, t.* from t where not exists (select 1 from b where b.license_id = t.license_id)
         union all
         select 'removed', b.* from b where not exists (select 1 from t where t.license_id = b.license_id)),
       ranked as (
         select diff.*, row_number() over (partition by kind order by license_id) as position,
                count(*) over (partition by kind) as total
           from diff)
     select kind, license_id, component_count, total from ranked where position <= ? order by kind, position`,
    [base, target, cap],
    { kind: column.text, licenseId: column.text, componentCount: column.integer, total: column.integer },
  );
  const licenses: DiffRows["licenses"] = { added: [], removed: [] };
  for (const { kind, licenseId, componentCount, total } of licenseRows) {
    licenses[kind === "added" ? "added" : "removed"].push({ licenseId, componentCount });
    if (kind === "added") totals.licensesAdded = total;
    else totals.licensesRemoved = total;
  }
  return { components, licenses, totals };
}
