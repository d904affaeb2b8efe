// Reads across the projects a caller may read (docs/dashboards.md): where a component is held, and the portfolio
// search. Each walks the newest snapshot of each readable project through that snapshot's own indexes (scan_id
// first), never every component. Raw SQL (ADR 5).
import type { EntityManager } from "@mikro-orm/postgresql";
import { column, rawQuery } from "@sca/db";
import type { PortfolioQuery } from "../../domain/portfolio-search.ts";
import type { ListScope } from "../../domain/project-access.ts";

/** The projects `p` the scope may read, as a condition, and its parameters. */
function readableSql(scope: ListScope): { sql: string; params: unknown[] } {
  if (scope.kind === "all") return { sql: "true", params: [] };
  return {
    sql: `(p.team_id in (select jsonb_array_elements_text(?::jsonb)::uuid)
           or p.visibility = 'organization' and p.organization_id in (select jsonb_array_elements_text(?::jsonb)::uuid))
          and (?::uuid is null or p.id = ?::uuid)`,
    params: [
      JSON.stringify(scope.teamIds),
      JSON.stringify(scope.organizationIds),
      scope.onlyProjectId,
      scope.onlyProjectId,
    ],
  };
}

/**
 * Each readable, active project joined to its newest snapshot (`p`, `s`): the FROM clause, the WHERE condition and
 * the condition's parameters.
 */
function newestReadable(scope: ListScope): { from: string; where: string; params: unknown[] } {
  const r = readableSql(scope);
  return {
    from: `from projects p
      join lateral (select scan_id, ingested_at, release, primary_component_name, primary_component_version
                      from inventory_snapshots where project_id = p.id
                     order by ingested_at desc, scan_id desc limit 1) s on true`,
    where: `p.archived_at is null and ${r.sql}`,
    params: r.params,
  };
}

export interface HoldingRow {
  projectId: string;
  projectName: string;
  teamId: string;
  scanId: string;
  ingestedAt: Date;
  release: string | null;
  rowId: string;
}

/** The component's rows in the newest snapshot of each readable project, by project name; at most `cap` + 1. */
export async function componentHoldings(
  em: EntityManager,
  scope: ListScope,
  componentId: string,
  cap: number,
): Promise<HoldingRow[]> {
  const from = newestReadable(scope);
  return rawQuery(
    em,
    `select p.id as project_id, p.name as project_name, p.team_id, s.scan_id, s.ingested_at, s.release, c.id as row_id
     ${from.from} join inventory_components c on c.scan_id = s.scan_id and c.component_id = ?::uuid
     where ${from.where} order by p.name, p.id limit ?`,
    [componentId, ...from.params, cap + 1],
    {
      projectId: column.text,
      projectName: column.text,
      teamId: column.text,
      scanId: column.text,
      ingestedAt: column.timestamp,
      release: column.text.nullable,
      rowId: column.text,
    },
  );
}

/** The open findings of these component rows (not dated removed), most severe first, with their VEX status. */
export async function openFindingsOfRows(em: EntityManager, rowIds: readonly string[]) {
  if (rowIds.length === 0) return [];
  return rawQuery(
    em,
    `select f.component_row_id, f.id, f.vulnerability_id, v.severity, coalesce(t.status, 'in_triage') as status,
            v.known_exploited
       from vulnerability_findings f join vulnerabilities v on v.id = f.vulnerability_id
       left join finding_triage t on t.project_id = f.project_id and t.component_key = f.component_key
         and t.vulnerability_id = f.vulnerability_id
      where f.component_row_id in (select jsonb_array_elements_text(?::jsonb)::uuid) and f.removed_at is null
      order by f.component_row_id, v.severity_rank desc, f.vulnerability_id`,
    [JSON.stringify(rowIds)],
    {
      componentRowId: column.text,
      id: column.text,
      vulnerabilityId: column.text,
      severity: column.text,
      status: column.text,
      knownExploited: column.boolean,
    },
  );
}

export interface SearchHitRow {
  projectId: string;
  projectName: string;
  teamId: string;
  scanId: string;
  release: string | null;
  rootName: string | null;
  rootVersion: string | null;
  componentId: string;
  rowId: string;
  name: string;
  version: string | null;
  purl: string | null;
  license: string | null;
  direct: boolean | null;
  total: number;
}

/** The hit condition on component `c` (in snapshot `s`) and its parameters. */
function hitSql(q: PortfolioQuery): { sql: string; params: unknown[] } {
  if (q.kind === "package") {
    // A range is judged by the caller in each component's ecosystem order: every version of the name is a candidate.
    const exact = q.version?.kind === "exact" ? q.version.text : null;
    return {
      sql: `c.name = ? and (?::text is null or c.version = ?)
            and (?::text is null or c.purl like 'pkg:' || ? || '/%')`,
      params: [q.name, exact, exact, q.purlType, q.purlType],
    };
  }
  if (q.kind === "license") return { sql: "c.license_ids @> jsonb_build_array(?::text)", params: [q.spdxId] };
  // The id or any alias names the canonical vulnerability; its open findings in the newest snapshot are the hits.
  return {
    sql: `exists (select from vulnerability_findings f where f.component_row_id = c.id and f.removed_at is null
            and f.vulnerability_id in (select ?::text union select vulnerability_id from vulnerability_aliases
                                        where alias = ?))`,
    params: [q.id, q.id],
  };
}

/** A page of the hits (or `limit` null: every hit), by project name, then component name and version. */
export async function searchPortfolio(
  em: EntityManager,
  scope: ListScope,
  q: PortfolioQuery,
  window: { limit: number; offset: number },
): Promise<SearchHitRow[]> {
  const from = newestReadable(scope);
  const hit = hitSql(q);
  return rawQuery(
    em,
    `select p.id as project_id, p.name as project_name, p.team_id, s.scan_id, s.release,
            s.primary_component_name as root_name, s.primary_component_version as root_version,
            c.component_id, c.id as row_id, c.name, c.version, c.purl, c.license, c.direct,
            count(*) over () as total
     ${from.from} join inventory_components c on c.scan_id = s.scan_id
     where ${from.where} and ${hit.sql}
     order by p.name, p.id, c.name, c.version nulls first, c.id limit ? offset ?`,
    [...from.params, ...hit.params, window.limit, window.offset],
    {
      projectId: column.text,
      projectName: column.text,
      teamId: column.text,
      scanId: column.text,
      release: column.text.nullable,
      rootName: column.text.nullable,
      rootVersion: column.text.nullable,
      componentId: column.text,
      rowId: column.text,
      name: column.text,
      version: column.text.nullable,
      purl: column.text.nullable,
      license: column.text.nullable,
      direct: column.boolean.nullable,
      total: column.integer,
    },
  );
}

/**
 * The dependency path from each snapshot's root to each of these component rows, in one statement: each step takes
 * one edge into the current component, the root's first, else from the shallowest parent (then by name, id), so a
 * walk is one line whatever the graph's width; at most 64 steps. Names with versions, root side first, by row id;
 * [] when no edge leads to the root.
 */
export async function dependencyPaths(
  em: EntityManager,
  rows: readonly { scanId: string; rowId: string }[],
): Promise<Map<string, string[]>> {
  if (rows.length === 0) return new Map();
  const steps = await rawQuery(
    em,
    `select h.row_id as target, w.n, w.row_id, c.name, c.version
       from jsonb_to_recordset(?::jsonb) as h(row_id uuid, scan_id uuid)
       cross join lateral (
         with recursive up(row_id, n) as (
           select h.row_id, 0
           union all
           select nxt.from_id, up.n + 1 from up cross join lateral (
             select e.from_component_id as from_id from inventory_edges e
               left join inventory_components p on p.id = e.from_component_id
              where e.scan_id = h.scan_id and e.to_component_id = up.row_id
              order by e.from_component_id is not null, p.depth asc nulls last, p.name, p.id limit 1) nxt
           where up.row_id is not null and up.n < 64)
         select * from up) w
       left join inventory_components c on c.id = w.row_id
      order by h.row_id, w.n desc`,
    [JSON.stringify(rows.map((r) => ({ row_id: r.rowId, scan_id: r.scanId })))],
    {
      target: column.text,
      n: column.integer,
      rowId: column.text.nullable,
      name: column.text.nullable,
      version: column.text.nullable,
    },
  );
  const paths = new Map<string, { reached: boolean; labels: string[] }>();
  for (const s of steps) {
    let path = paths.get(s.target);
    // Steps come root side first: the first one of a target tells whether its walk reached the root.
    if (!path) paths.set(s.target, (path = { reached: s.rowId === null, labels: [] }));
    if (s.rowId !== null) path.labels.push(s.version ? `${s.name}@${s.version}` : s.name!);
  }
  return new Map([...paths].map(([target, p]) => [target, p.reached ? p.labels : []]));
}
