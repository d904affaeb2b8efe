// Reads and writes of known_scan_states: the newest scan state each instance heard of (see the entity).
import type { EntityManager } from "@mikro-orm/postgresql";
import { KnownScanState, type KnownScanStateRow } from "./entities/known-scan-state.ts";

export interface HeardState {
  scanId: string;
  status: string;
  attempt: number;
  occurredAt: Date;
}

/**
 * Records a state change unless a newer one is already known (a higher attempt, or the same attempt changed
 * later). Every instance records every change, so the write is idempotent and order-tolerant.
 */
export async function recordHeardState(em: EntityManager, heard: HeardState): Promise<void> {
  await em
    .createQueryBuilder(KnownScanState)
    .insert({ ...heard, updatedAt: new Date() })
    .onConflict("scanId")
    .ignore()
    .execute("run");
  await em
    .createQueryBuilder(KnownScanState)
    .update({ status: heard.status, attempt: heard.attempt, occurredAt: heard.occurredAt, updatedAt: new Date() })
    .where({
      scanId: heard.scanId,
      $or: [{ attempt: { $lt: heard.attempt } }, { attempt: heard.attempt, occurredAt: { $lt: heard.occurredAt } }],
    })
    .execute("run");
}

export async function knownState(em: EntityManager, scanId: string): Promise<KnownScanStateRow | null> {
  return em.findOne(KnownScanState, { scanId }, { disableIdentityMap: true });
}
