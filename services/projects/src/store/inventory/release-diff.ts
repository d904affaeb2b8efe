// The difference of two snapshots (domain/release-diff.ts), computed in PostgreSQL. Raw SQL (ADR 5): set differences
// over both snapshots' components, at most `cap` rows per list reaching us, which the ORM cannot express.
import type { EntityManager } from "@mikro-orm/postgresql";
import { column, rawQuery } from "@sca/db";
import type { DiffTotals } from "../../domain/release-diff.ts";

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
