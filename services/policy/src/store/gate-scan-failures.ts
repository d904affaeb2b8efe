// The scans the gate failed after they succeeded (gate_scan_failures): the first record of a scan wins, so the
// GateFailed written with it in the same transaction is published once per scan.
import type { EntityManager } from "@mikro-orm/postgresql";
import { rawStatement } from "@sca/db";

/** Records the scan's failure; false when it was recorded already (nothing more to publish). */
export async function recordGateFailure(
  em: EntityManager,
  failure: { scanId: string; projectId: string; reasonCodes: readonly string[]; at: Date },
): Promise<boolean> {
  const inserted = await rawStatement(
    em,
    `insert into gate_scan_failures (scan_id, project_id, reason_codes, failed_at) values (?, ?, ?, ?)
     on conflict (scan_id) do nothing`,
    [failure.scanId, failure.projectId, failure.reasonCodes.join(","), failure.at.toISOString()],
  );
  return inserted === 1;
}
