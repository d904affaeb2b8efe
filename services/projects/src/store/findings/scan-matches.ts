// A scan's matches: its findings, the package version of each matched component (snapshot_packages) and the record
// that it was matched (scan_matches).
import type { EntityManager } from "@mikro-orm/postgresql";
import { deleteBatched } from "../batched-delete.ts";
import { ScanMatch } from "../entities/findings.ts";

/**
 * Deletes the findings, matched package versions and match records of these (deleted) scans, in bounded statements
 * inside the caller's transaction. The triage, keyed by the project's component identity, stays for later scans.
 */
export async function deleteFindingsOfScans(
  em: EntityManager,
  scanIds: readonly string[],
  signal: AbortSignal,
): Promise<void> {
  await deleteBatched(em, "vulnerability_findings", "id", scanIds, signal);
  await deleteBatched(em, "snapshot_packages", "component_row_id", scanIds, signal);
  await em.nativeDelete(ScanMatch, { scanId: { $in: [...scanIds] } });
}
