// The scans the gate failed after they succeeded (gate_scan_failures): the first record of a scan wins, so the
// GateFailed written with it in the same transaction is published once per scan. Late registry licenses making the
// gate pass clear the record (GatePassed, once); a failure after that records, and is told, again.
import type { EntityManager } from "@mikro-orm/postgresql";
import { rawStatement } from "@sca/db";

/** Records the scan's failure; false when it was recorded already and not cleared since (nothing to publish). */
export async function recordGateFailure(
  em: EntityManager,
  failure: { scanId: string; projectId: string; reasonCodes: readonly string[]; at: Date },
): Promise<boolean> {
  const inserted = await rawStatement(
    em,
    `insert into gate_scan_failures (scan_id, project_id, reason_codes, failed_at) values (?, ?, ?, ?)
     on conflict (scan_id) do update set reason_codes = excluded.reason_codes, failed_at = excluded.failed_at,
       cleared_at = null
     where gate_scan_failures.cleared_at is not null`,
    [failure.scanId, failure.projectId, failure.reasonCodes.join(","), failure.at.toISOString()],
  );
  return inserted === 1;
}

/** Clears the scan's recorded failure; false when none is recorded, or it was cleared already (nothing to publish). */
export async function clearGateFailure(em: EntityManager, scanId: string, at: Date): Promise<boolean> {
  const cleared = await rawStatement(
    em,
    `update gate_scan_failures set cleared_at = ? where scan_id = ? and cleared_at is null`,
    [at.toISOString(), scanId],
  );
  return cleared === 1;
}
