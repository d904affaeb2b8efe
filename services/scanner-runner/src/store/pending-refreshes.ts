// Reads and writes of the refreshes' durable to-do (vulndb_rematch_packages, vulndb_pending_enrichment_updates: the
// feeds whose refresh still has to reach the findings or re-stamp the components):
// queued in the transaction that changed the data, taken under a row lock, deleted in the transaction that saw the
// work through, so the work is done at least once and its replay is harmless (projects records verdicts
// idempotently).
import type { EntityManager } from "@mikro-orm/postgresql";
import { column, rawQuery, rawStatement } from "@sca/db";

const BATCH = 1000;

export interface PackageName {
  ecosystem: string;
  name: string;
}

/** Queues the package names for a re-match (again, when already queued). */
export async function queueRematch(em: EntityManager, packages: readonly PackageName[]): Promise<void> {
  for (let i = 0; i < packages.length; i += BATCH)
    await rawStatement(
      em,
      `insert into vulndb_rematch_packages (ecosystem, name, queued_at)
       select x.ecosystem, x.name, now() from jsonb_to_recordset(?::jsonb) as x(ecosystem text, name text)
       on conflict (ecosystem, name) do update set queued_at = excluded.queued_at`,
      [JSON.stringify(packages.slice(i, i + BATCH))],
    );
}

/** Up to `limit` queued package names, locked until the caller's transaction ends (others skip them). */
export async function takeRematchPackages(em: EntityManager, limit: number): Promise<PackageName[]> {
  return rawQuery(
    em,
    `select ecosystem, name from vulndb_rematch_packages order by ecosystem, name limit ? for update skip locked`,
    [limit],
    { ecosystem: column.text, name: column.text },
  );
}

export async function rematchPendingCount(em: EntityManager): Promise<number> {
  const rows = await rawQuery(em, `select count(*)::int as n from vulndb_rematch_packages`, [], { n: column.integer });
  return rows[0]?.n ?? 0;
}

export async function forgetRematchPackages(em: EntityManager, packages: readonly PackageName[]): Promise<void> {
  for (let i = 0; i < packages.length; i += BATCH)
    await rawStatement(
      em,
      `delete from vulndb_rematch_packages p using jsonb_to_recordset(?::jsonb) as x(ecosystem text, name text)
       where p.ecosystem = x.ecosystem and p.name = x.name`,
      [JSON.stringify(packages.slice(i, i + BATCH))],
    );
}

/** Queues an enrichment feed's refresh for the findings. */
export async function queueEnrichmentUpdate(em: EntityManager, feed: string): Promise<void> {
  await rawStatement(
    em,
    `insert into vulndb_pending_enrichment_updates (feed, queued_at) values (?, now())
     on conflict (feed) do update set queued_at = excluded.queued_at`,
    [feed],
  );
}

/** The feeds whose refresh reaches the findings (scores, flags) and those that re-stamp the components' states. */
export const FINDINGS_FEEDS = ["kev", "epss"] as const;
export const COMPONENT_STATE_FEEDS = ["eol", "malicious"] as const;

/** The queued feeds among `feeds`, locked until the caller's transaction ends. */
export async function takeEnrichmentUpdates(em: EntityManager, feeds: readonly string[]): Promise<string[]> {
  const rows = await rawQuery(
    em,
    `select feed from vulndb_pending_enrichment_updates where feed in (select jsonb_array_elements_text(?::jsonb))
     order by feed for update skip locked`,
    [JSON.stringify(feeds)],
    { feed: column.text },
  );
  return rows.map((r) => r.feed);
}

/** Whether any of `feeds` is queued. */
export async function enrichmentUpdatesQueued(em: EntityManager, feeds: readonly string[]): Promise<boolean> {
  const rows = await rawQuery(
    em,
    `select exists (select 1 from vulndb_pending_enrichment_updates
       where feed in (select jsonb_array_elements_text(?::jsonb))) as queued`,
    [JSON.stringify(feeds)],
    { queued: column.boolean },
  );
  return rows[0]?.queued ?? false;
}

export async function forgetEnrichmentUpdates(em: EntityManager, feeds: readonly string[]): Promise<void> {
  await rawStatement(
    em,
    `delete from vulndb_pending_enrichment_updates where feed in (select jsonb_array_elements_text(?::jsonb))`,
    [JSON.stringify(feeds)],
  );
}
