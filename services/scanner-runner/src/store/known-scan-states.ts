// Reads and writes of known_scan_states: the newest scan state each instance heard of (see the entity).
import type { EntityManager } from "@mikro-orm/postgresql";
import { rawStatement } from "@sca/db";
import { KnownScanState, type KnownScanStateRow } from "./entities/known-scan-state.ts";

export interface HeardState {
  scanId: string;
  status: string;
  attempt: number;
  occurredAt: Date;
}

/**
 * Records a state change unless a newer one is already known (a higher attempt, or the same attempt changed
 * later). Every instance records every change, so the write is idempotent and order-tolerant. One statement: the
 * insert of a scan not heard of, or the update of an older state.
 */
export async function recordHeardState(em: EntityManager, heard: HeardState): Promise<void> {
  await rawStatement(
    em,
    `insert into known_scan_states as k (scan_id, status, attempt, occurred_at, updated_at) values (?, ?, ?, ?, now())
     on conflict (scan_id) do update
        set status = excluded.status, attempt = excluded.attempt, occurred_at = excluded.occurred_at,
            updated_at = excluded.updated_at
      where k.attempt < excluded.attempt or (k.attempt = excluded.attempt and k.occurred_at < excluded.occurred_at)`,
    [heard.scanId, heard.status, heard.attempt, heard.occurredAt],
  );
}

export async function knownState(em: EntityManager, scanId: string): Promise<KnownScanStateRow | null> {
  return em.findOne(KnownScanState, { scanId }, { disableIdentityMap: true });
}
