// What the policy service reads of a snapshot for license obligations and the notice (docs/obligations.md): the
// distinct license expressions with their component counts, grouped in SQL (the (scan_id, license, ...) index
// serves it), and the components' attribution fields a page at a time (keyset on name, id: the list's index).
import type { EntityManager } from "@mikro-orm/postgresql";
import { column, rawQuery } from "@sca/db";

export interface ExpressionCount {
  /** The component's license; null for components without one. */
  expression: string | null;
  componentCount: number;
}

/** At most `cap` distinct expressions, most components first (ties by expression), and whether there were more. */
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
