// The components' licenses: what judging them needs and their categories (events/license-policy-feed.ts), the
// registry lookup's licenses (docs/license-fetch.md), and what the policy service reads for obligations and the
// notice (docs/obligations.md). Raw SQL (ADR 5): plain rows of whole snapshots (no entity hydration), and set-based
// statements over thousands of rows (one per category; one over a JSON array of the fetched licenses).
import type { EntityManager } from "@mikro-orm/postgresql";
import { column, rawQuery, rawStatement } from "@sca/db";
import { LICENSE_SOURCE_PROPERTY, type FetchedLicenseRow } from "../../domain/fetched-licenses.ts";

/** What judging a snapshot's licenses needs of each of its components. */
export async function snapshotLicenses(
  em: EntityManager,
  scanId: string,
): Promise<{ id: string; license: string | null; purl: string | null; licenseCategory: string | null }[]> {
  return rawQuery(
    em,
    "select id, license, purl, license_category from inventory_components where scan_id = ?",
    [scanId],
    {
      id: column.text,
      license: column.text.nullable,
      purl: column.text.nullable,
      licenseCategory: column.text.nullable,
    },
  );
}

/** Sets one license_category on the snapshot's components of these ids: one statement per category. */
export async function setLicenseCategory(
  em: EntityManager,
  scanId: string,
  category: string,
  ids: readonly string[],
): Promise<number> {
  if (ids.length === 0) return 0;
  return rawStatement(
    em,
    "update inventory_components set license_category = ? where scan_id = ? and id = any(?::uuid[])",
    [category, scanId, `{${ids.join(",")}}`],
  );
}

// The registry lookup's licenses fill only rows without a license (declared nor concluded), so a repeat, or a license
// the document stated, is left as it is. The fetched license becomes the declared one (and so the component's
// license), its ids join the row's, and raw_data gains the property naming the registry, as the runner wrote it
// when the lookup ran before ingestion.
const FILL = `update inventory_components c set
    declared_license = x.expression,
    license = x.expression,
    license_ids = (
      select coalesce(jsonb_agg(d.id order by d.id collate "C"), '[]'::jsonb)
      from (select distinct id from jsonb_array_elements_text(c.license_ids || x.license_ids) as e(id)) d),
    raw_data = jsonb_set(c.raw_data, '{properties}',
      (case when jsonb_typeof(c.raw_data -> 'properties') = 'array' then c.raw_data -> 'properties' else '[]'::jsonb end)
        || jsonb_build_array(jsonb_build_object('name', ?::text, 'value', 'registry:' || x.registry))),
    updated_at = now()
  from jsonb_to_recordset(?::jsonb) as x(purl text, expression text, license_ids jsonb, registry text)
  where c.scan_id = ? and c.purl = x.purl and c.declared_license is null and c.concluded_license is null
    and jsonb_typeof(c.raw_data) = 'object'`;

/** Fills the snapshot's license-less rows carrying a listed purl; answers the rows filled. */
export async function writeFetchedLicenses(
  em: EntityManager,
  scanId: string,
  licenses: readonly FetchedLicenseRow[],
): Promise<number> {
  if (licenses.length === 0) return 0;
  const recordset = JSON.stringify(
    licenses.map((l) => ({ purl: l.purl, expression: l.expression, license_ids: l.licenseIds, registry: l.registry })),
  );
  return rawStatement(em, FILL, [LICENSE_SOURCE_PROPERTY, recordset, scanId]);
}

export interface ExpressionCount {
  /** The component's license; null for components without one. */
  expression: string | null;
  componentCount: number;
}

/**
 * At most `cap` distinct expressions, most components first (ties by expression), and whether there were more;
 * grouped in SQL (the (scan_id, license, ...) index serves it).
 */
export async function licenseExpressionCounts(
  em: EntityManager,
  scanId: string,
  cap: number,
): Promise<{ expressions: ExpressionCount[]; truncated: boolean }> {
  const rows = await rawQuery(
    em,
    `select license as expression, count(*) as component_count
       from inventory_components
      where scan_id = ?
      group by license
      order by count(*) desc, license nulls first
      limit ?`,
    [scanId, cap + 1],
    { expression: column.text.nullable, componentCount: column.integer },
  );
  return { expressions: rows.slice(0, cap), truncated: rows.length > cap };
}

export interface AttributionRow {
  id: string;
  name: string;
  groupName: string | null;
  version: string | null;
  purl: string | null;
  license: string | null;
  supplier: string | null;
  author: string | null;
  copyright: string | null;
}

const ATTRIBUTION_COLUMNS = {
  id: column.text,
  name: column.text,
  groupName: column.text.nullable,
  version: column.text.nullable,
  purl: column.text.nullable,
  license: column.text.nullable,
  supplier: column.text.nullable,
  author: column.text.nullable,
  copyright: column.text.nullable,
};

// raw_data is the component as the document wrote it: a CycloneDX component's `copyright`, an SPDX package's
// `copyrightText`. Only that string leaves the row, never the whole document.
const ATTRIBUTION_SELECT = `
  select id, name, group_name, version, purl, license, supplier, author,
         coalesce(raw_data->>'copyright', raw_data->>'copyrightText') as copyright
    from inventory_components`;

/** Every component of the snapshot, `size` at a time, by (name, id). */
export async function* attributionPages(
  em: EntityManager,
  scanId: string,
  size: number,
): AsyncGenerator<AttributionRow[]> {
  let after: { name: string; id: string } | null = null;
  for (;;) {
    const rows: AttributionRow[] = await rawQuery(
      em,
      after === null
        ? `${ATTRIBUTION_SELECT} where scan_id = ? order by name, id limit ?`
        : `${ATTRIBUTION_SELECT} where scan_id = ? and (name, id) > (?, ?::uuid) order by name, id limit ?`,
      after === null ? [scanId, size] : [scanId, after.name, after.id, size],
      ATTRIBUTION_COLUMNS,
    );
    if (!rows.length) return;
    yield rows;
    if (rows.length < size) return;
    const last = rows[rows.length - 1]!;
    after = { name: last.name, id: last.id };
  }
}
