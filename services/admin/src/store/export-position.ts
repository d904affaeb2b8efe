// How far the log has been shipped to the collector: the one module that reads or writes `audit_export_positions`.
import { LockMode, type EntityManager } from "@mikro-orm/postgresql";
import { SNAPSHOT } from "@sca/db";
import { AuditExportPosition } from "./entities/audit-export-position.ts";

const COLLECTOR = "collector";

/**
 * The last position the collector accepted, its row locked until the transaction ends; null when another replica's
 * run holds it (that run ships meanwhile). Run inside em.transactional.
 */
export async function claimExportPosition(em: EntityManager): Promise<number | null> {
  await em
    .createQueryBuilder(AuditExportPosition)
    .insert({ name: COLLECTOR, lastSeq: 0 })
    .onConflict("name")
    .ignore()
    .execute("run");
  const row = await em.findOne(
    AuditExportPosition,
    { name: COLLECTOR },
    { ...SNAPSHOT, lockMode: LockMode.PESSIMISTIC_PARTIAL_WRITE },
  );
  return row?.lastSeq ?? null;
}

/** Moves the position to `seq` (the last entry of a batch the collector accepted). */
export async function advanceExportPosition(em: EntityManager, seq: number): Promise<void> {
  await em.nativeUpdate(AuditExportPosition, { name: COLLECTOR }, { lastSeq: seq, updatedAt: new Date() });
}

/** The position without locking it (tests, status). */
export async function exportPosition(em: EntityManager): Promise<number> {
  const row = await em.findOne(AuditExportPosition, { name: COLLECTOR }, SNAPSHOT);
  return row?.lastSeq ?? 0;
}
