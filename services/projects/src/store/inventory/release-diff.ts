// The difference of two snapshots (domain/release-diff.ts), computed in PostgreSQL. Raw SQL (ADR 5): set differences
// over both snapshots' components, license ids and open findings' vulnerabilities, at most `cap` rows per list
// reaching us, which the ORM cannot express.
import type { EntityManager } from "@mikro-orm/postgresql";
import { column, rawQuery } from "@sca/db";
import { NO_CHANGES, type DiffTotals } from "../../domain/release-diff.ts";

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
  /** Vulnerability ids. */
  vulnerabilities: { added: string[]; removed: string[] };
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
  const totals: DiffTotals = { ...NO_CHANGES };
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

  const licenseSide = `select lid as id, count(*) as component_count
       from inventory_components c cross join lateral jsonb_array_elements_text(c.license_ids) as lid
      where c.scan_id = ? group by lid`;
  const licenseRows = await oneSidedIds(em, licenseSide, base, target, cap);
  const licenses: DiffRows["licenses"] = { added: [], removed: [] };
  for (const { kind, id, componentCount, total } of licenseRows) {
    licenses[kind === "added" ? "added" : "removed"].push({ licenseId: id, componentCount });
    if (kind === "added") totals.licensesAdded = total;
    else totals.licensesRemoved = total;
  }

  // A vulnerability is the snapshot's when one of its components has an open finding of it (re-matching may have
  // set removed_at on the others).
  const vulnerabilitySide = `select vulnerability_id as id, count(*) as component_count
       from vulnerability_findings where scan_id = ? and removed_at is null group by vulnerability_id`;
  const vulnerabilityRows = await oneSidedIds(em, vulnerabilitySide, base, target, cap);
  const vulnerabilities: DiffRows["vulnerabilities"] = { added: [], removed: [] };
  for (const { kind, id, total } of vulnerabilityRows) {
    vulnerabilities[kind === "added" ? "added" : "removed"].push(id);
    if (kind === "added") totals.vulnerabilitiesAdded = total;
    else totals.vulnerabilitiesRemoved = total;
  }
  return { components, licenses, vulnerabilities, totals };
}

/**
 * The ids only the target's side names (`added`) or only the base's (`removed`), at most `cap` of each by id, with
 * each kind's whole count. `side` selects `id` and `component_count` of the scan given as its one parameter.
 */
async function oneSidedIds(em: EntityManager, side: string, base: string, target: string, cap: number) {
  return rawQuery(
    em,
    `with b as (${side}), t as (${side}),
       diff as (
         select 'added' as kind, t.* from t where not exists (select 1 from b where b.id = t.id)
         union all
         select 'removed', b.* from b where not exists (select 1 from t where t.id = b.id)),
       ranked as (
         select diff.*, row_number() over (partition by kind order by id) as position,
                count(*) over (partition by kind) as total
           from diff)
     select kind, id, component_count, total from ranked where position <= ? order by kind, position`,
    [base, target, cap],
    { kind: column.text, id: column.text, componentCount: column.integer, total: column.integer },
  );
}
