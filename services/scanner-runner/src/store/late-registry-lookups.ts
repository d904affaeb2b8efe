// Reads and writes of late_registry_lookups (docs/license-fetch.md, "After the outcome"): queued in the job's
// transaction with the scan's outcome, claimed one at a time for a lease (several instances share the queue), deleted
// in the transaction after projects recorded the answers, or handed back for a retry when recording failed.
import type { EntityManager } from "@mikro-orm/postgresql";
import { column, rawQuery, rawStatement } from "@sca/db";

export interface LateLookup {
  scanId: string;
  projectId: string;
  /** The scan's attempt that queued it: a later attempt's row replaces it. */
  attempt: number;
  licensePurls: string[];
  currencyPurls: string[];
}

/** Queues a scan's late lookups (a later attempt of the same scan replaces its earlier one's). */
export async function queueLateLookup(em: EntityManager, lookup: LateLookup): Promise<void> {
  await rawStatement(
    em,
    `insert into late_registry_lookups (scan_id, project_id, attempt, license_purls, currency_purls, queued_at)
     values (?, ?, ?, ?::jsonb, ?::jsonb, clock_timestamp())
     on conflict (scan_id) do update set project_id = excluded.project_id, attempt = excluded.attempt,
       license_purls = excluded.license_purls, currency_purls = excluded.currency_purls,
       queued_at = excluded.queued_at, claimed_until = null`,
    [
      lookup.scanId,
      lookup.projectId,
      lookup.attempt,
      JSON.stringify(lookup.licensePurls),
      JSON.stringify(lookup.currencyPurls),
    ],
  );
}

/** The oldest unclaimed (or lease-expired) lookup, claimed for `leaseMs`; null when there is none. */
export async function claimLateLookup(em: EntityManager, leaseMs: number): Promise<LateLookup | null> {
  const rows = await rawQuery(
    em,
    `update late_registry_lookups l set claimed_until = clock_timestamp() + ? * interval '1 millisecond'
     where l.scan_id = (
       select scan_id from late_registry_lookups
       where claimed_until is null or claimed_until < clock_timestamp()
       order by queued_at limit 1 for update skip locked)
     returning l.scan_id, l.project_id, l.attempt, l.license_purls, l.currency_purls`,
    [leaseMs],
    {
      scanId: column.text,
      projectId: column.text,
      attempt: column.integer,
      licensePurls: column.json<string[]>(),
      currencyPurls: column.json<string[]>(),
    },
  );
  return rows[0] ?? null;
}

/** Forgets a lookup seen through, unless a later attempt of the scan queued another meanwhile. */
export async function forgetLateLookup(em: EntityManager, lookup: LateLookup): Promise<void> {
  await rawStatement(em, `delete from late_registry_lookups where scan_id = ? and attempt = ?`, [
    lookup.scanId,
    lookup.attempt,
  ]);
}

/** Hands a lookup back, to be taken again after `retryMs`. */
export async function retryLateLookupAfter(em: EntityManager, lookup: LateLookup, retryMs: number): Promise<void> {
  await rawStatement(
    em,
    `update late_registry_lookups set claimed_until = clock_timestamp() + ? * interval '1 millisecond'
     where scan_id = ? and attempt = ?`,
    [retryMs, lookup.scanId, lookup.attempt],
  );
}

export async function lateLookupCount(em: EntityManager): Promise<number> {
  const rows = await rawQuery(em, `select count(*)::int as n from late_registry_lookups`, [], { n: column.integer });
  return rows[0]?.n ?? 0;
}
