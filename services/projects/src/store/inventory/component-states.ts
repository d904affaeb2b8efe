// Writing the enrichment states on components (docs/inventory.md, "Component states"; docs/enrichment-feeds.md,
// "Re-stamping after a snapshot refresh"): one set-based statement over a JSON array of the purls' states
// (jsonb_to_recordset), joined to the rows by purl: a scan's snapshot, or every project's newest snapshot when a
// refreshed snapshot re-stamps them. Each statement answers the rows it changed with their malicious state before
// (a self-join reads the row as it was), so the rows that became flagged are known without another pass. Raw SQL
// (ADR 5): set-based statements over thousands of rows.
import type { EntityManager } from "@mikro-orm/postgresql";
import { column, rawQuery } from "@sca/db";
import type { ComponentStateRow } from "../../domain/component-states.ts";
import { ACTIVE_PROJECT_ROWS } from "../projects.ts";
import { LATEST_SNAPSHOTS } from "./relations.ts";

/** The feeds a re-stamp replaces, each with its columns. */
export const RESTAMP_FEEDS = {
  eol: ["eol_state", "eol_cycle", "eol_date", "eol_product", "eol_source"],
  malicious: ["malicious_state", "malicious_id", "malicious_source"],
} as const;
export type RestampFeed = keyof typeof RESTAMP_FEEDS;

const ALL_COLUMNS = [
  ...RESTAMP_FEEDS.eol,
  "currency_state",
  "currency_latest",
  "currency_latest_release_date",
  ...RESTAMP_FEEDS.malicious,
] as const;

/** A row a write changed: its state before and after (the ones the panels and the flag event read). */
export interface ChangedRow {
  id: string;
  projectId: string;
  eolBefore: string | null;
  eolState: string | null;
  maliciousBefore: string | null;
  maliciousState: string | null;
}

const CHANGED_COLUMNS = {
  id: column.text,
  projectId: column.text,
  eolBefore: column.text.nullable,
  eolState: column.text.nullable,
  maliciousBefore: column.text.nullable,
  maliciousState: column.text.nullable,
};

const recordsetOf = (states: readonly ComponentStateRow[]) =>
  JSON.stringify(
    states.map((s) => ({
      purl: s.purl,
      eol_state: s.eolState,
      eol_cycle: s.eolCycle,
      eol_date: s.eolDate,
      eol_product: s.eolProduct,
      eol_source: s.eolSource,
      currency_state: s.currencyState,
      currency_latest: s.currencyLatest,
      currency_latest_release_date: s.currencyLatestReleaseDate,
      malicious_state: s.maliciousState,
      malicious_id: s.maliciousId,
      malicious_source: s.maliciousSource,
    })),
  );

/** The update of `columns` from the recordset on the rows `where` selects (the alias c), rows already equal left. */
function updateSql(columns: readonly string[], where: string, prefix = ""): string {
  return `${prefix}
    update inventory_components c set ${columns.map((k) => `${k} = x.${k}`).join(", ")}, updated_at = now()
    from jsonb_to_recordset(?::jsonb) as x(purl text, ${ALL_COLUMNS.map((k) => `${k} text`).join(", ")}),
      inventory_components o
    where o.id = c.id and ${where} and c.purl = x.purl
      and (${columns.map((k) => `c.${k}`).join(", ")}) is distinct from (${columns.map((k) => `x.${k}`).join(", ")})
    returning c.id, c.project_id, o.eol_state as eol_before, c.eol_state, o.malicious_state as malicious_before,
      c.malicious_state`;
}

/**
 * Every row of the snapshot carrying a listed purl takes that purl's states (all twelve columns, so a state no
 * longer assessed goes back to null); answers the rows that changed (a repeat changes nothing).
 */
export async function writeComponentStates(
  em: EntityManager,
  scanId: string,
  states: readonly ComponentStateRow[],
): Promise<ChangedRow[]> {
  if (states.length === 0) return [];
  return rawQuery(em, updateSql(ALL_COLUMNS, "c.scan_id = ?"), [recordsetOf(states), scanId], CHANGED_COLUMNS);
}

/** The named feeds' columns (only those) of every newest snapshot's rows carrying a listed purl. */
export async function restampComponentStates(
  em: EntityManager,
  feeds: readonly RestampFeed[],
  states: readonly ComponentStateRow[],
): Promise<ChangedRow[]> {
  if (states.length === 0 || feeds.length === 0) return [];
  const columns = feeds.flatMap((f) => RESTAMP_FEEDS[f]);
  return rawQuery(
    em,
    updateSql(
      columns,
      "c.scan_id in (select scan_id from latest)",
      `with latest as materialized (${LATEST_SNAPSHOTS})`,
    ),
    [recordsetOf(states)],
    CHANGED_COLUMNS,
  );
}

/** The rows that became flagged by a write. */
export const newlyFlagged = (rows: readonly ChangedRow[]): ChangedRow[] =>
  rows.filter((r) => r.maliciousState === "flagged" && r.maliciousBefore !== "flagged");

/** The distinct purls of every project's newest snapshot after `after`, `limit` of them, in order (a keyset). */
export async function heldPurls(em: EntityManager, after: string, limit: number): Promise<string[]> {
  const rows = await rawQuery(
    em,
    `select distinct c.purl from inventory_components c
     where c.scan_id in (${LATEST_SNAPSHOTS}) and c.purl is not null and c.purl > ?
     order by c.purl limit ?`,
    [after, limit],
    { purl: column.text },
  );
  return rows.map((r) => r.purl);
}

export interface ComponentStateCounts {
  eolStamped: number;
  eolFlagged: number;
  maliciousStamped: number;
  maliciousFlagged: number;
}

/** The rows of every project's newest snapshot carrying each feed's state, and those end of life or flagged. */
export async function componentStateCounts(em: EntityManager): Promise<ComponentStateCounts> {
  const rows = await rawQuery(
    em,
    `select count(eol_state)::int as eol_stamped, (count(*) filter (where eol_state = 'eol'))::int as eol_flagged,
       count(malicious_state)::int as malicious_stamped,
       (count(*) filter (where malicious_state = 'flagged'))::int as malicious_flagged
     from inventory_components where scan_id in (${LATEST_SNAPSHOTS})`,
    [],
    {
      eolStamped: column.integer,
      eolFlagged: column.integer,
      maliciousStamped: column.integer,
      maliciousFlagged: column.integer,
    },
  );
  return rows[0] ?? { eolStamped: 0, eolFlagged: 0, maliciousStamped: 0, maliciousFlagged: 0 };
}

/** A flagged component as the event names it, with its project's team. */
export interface FlaggedComponentRow {
  projectId: string;
  teamId: string;
  scanId: string;
  componentId: string;
  name: string;
  version: string | null;
  purl: string | null;
  maliciousId: string | null;
  maliciousSource: string | null;
}

/**
 * The named rows with what the flag event says of them, projects not archived. With `sincePrevious`, components
 * (by component id) already flagged in their project's snapshot before the row's own are left out: a rescan of a
 * flagged component is not news.
 */
export async function flaggedComponents(
  em: EntityManager,
  rowIds: readonly string[],
  sincePrevious: boolean,
): Promise<FlaggedComponentRow[]> {
  if (rowIds.length === 0) return [];
  return rawQuery(
    em,
    `select c.project_id, p.team_id, c.scan_id, c.component_id, c.name, c.version, c.purl, c.malicious_id,
       c.malicious_source
     from inventory_components c
     join (${ACTIVE_PROJECT_ROWS}) p on p.id = c.project_id
     where c.id in (select value::uuid from jsonb_array_elements_text(?::jsonb))
       ${
         sincePrevious
           ? `and not exists (
         select 1 from inventory_snapshots s
         join inventory_snapshots prev on prev.scan_id = (
           select p2.scan_id from inventory_snapshots p2
           where p2.project_id = s.project_id and p2.scan_id <> s.scan_id
             and (p2.ingested_at, p2.scan_id) < (s.ingested_at, s.scan_id)
           order by p2.ingested_at desc, p2.scan_id desc limit 1)
         join inventory_components pc on pc.scan_id = prev.scan_id and pc.component_id = c.component_id
         where s.scan_id = c.scan_id and pc.malicious_state = 'flagged')`
           : ""
       }
     order by c.project_id, c.name, c.version`,
    [JSON.stringify(rowIds)],
    {
      projectId: column.text,
      teamId: column.text,
      scanId: column.text,
      componentId: column.text,
      name: column.text,
      version: column.text.nullable,
      purl: column.text.nullable,
      maliciousId: column.text.nullable,
      maliciousSource: column.text.nullable,
    },
  );
}
