// known_scans: projects' copy of the scans it heard of (see the entity); the one module naming its columns.
import type { EntityManager } from "@mikro-orm/postgresql";
import { rawStatement, SNAPSHOT } from "@sca/db";
import type { KnownScanState, ScanStatus } from "../domain/scan-feed.ts";
import { KnownScan } from "./entities/known-scan.ts";

export interface HeardScan {
  scanId: string;
  projectId: string;
  status: ScanStatus;
  release: string | null;
  scanCreatedAt: Date;
  completedAt: Date | null;
  occurredAt: Date;
}

/** What projects holds of the scan, for the ordering rule; null when it never heard of it. */
export async function knownScanState(em: EntityManager, scanId: string): Promise<KnownScanState | null> {
  const row = await em.findOne(KnownScan, { scanId }, { ...SNAPSHOT, fields: ["status", "changedAt", "deletedAt"] });
  if (!row) return null;
  return { status: row.status as ScanStatus | null, changedAt: row.changedAt, deleted: row.deletedAt !== null };
}

/** Records the scan as the event tells it (the caller decided the event applies). */
export async function recordHeardScan(em: EntityManager, s: HeardScan): Promise<void> {
  await em
    .createQueryBuilder(KnownScan)
    .insert({
      scanId: s.scanId,
      projectId: s.projectId,
      status: s.status,
      release: s.release,
      scanCreatedAt: s.scanCreatedAt,
      completedAt: s.completedAt,
      changedAt: s.occurredAt,
      deletedAt: null,
    })
    .onConflict("scanId")
    .merge(["status", "release", "scanCreatedAt", "completedAt", "changedAt"])
    .execute("run");
}

/**
 * Marks the project's scans deleted (a tombstone for one never heard of, so its late events change nothing).
 * A scan another project holds is left alone.
 */
export async function markScansDeleted(
  em: EntityManager,
  projectId: string,
  scanIds: readonly string[],
  at: Date,
): Promise<void> {
  if (scanIds.length === 0) return;
  await em
    .createQueryBuilder(KnownScan)
    .insert(scanIds.map((scanId) => ({ scanId, projectId, changedAt: at, deletedAt: at })))
    .onConflict("scanId")
    .ignore()
    .execute("run");
  await em.nativeUpdate(KnownScan, { scanId: { $in: [...scanIds] }, projectId, deletedAt: null }, { deletedAt: at });
}

/**
 * Sets the project's scan-fed figures (scan_count, release_count, the latest scan's id, status and creation) over the
 * scans it holds (not deleted), in one statement: the counts and the newest row read where they are written.
 * Nothing when the project is not ours; updated_at stays the time of the last API change.
 */
export async function refreshScanFigures(em: EntityManager, projectId: string): Promise<void> {
  await rawStatement(
    em,
    `update projects p
        set scan_count = f.scan_count, release_count = f.release_count,
            latest_scan_id = l.scan_id, latest_scan_status = l.status, last_scan_at = l.scan_created_at
       from (select count(*) as scan_count,
                    count(*) filter (where status = 'succeeded' and release is not null) as release_count
               from known_scans where project_id = ? and deleted_at is null) f
       left join lateral (select scan_id, status, scan_created_at from known_scans
                           where project_id = ? and deleted_at is null
                           order by scan_created_at desc, scan_id desc limit 1) l on true
      where p.id = ?`,
    [projectId, projectId, projectId],
  );
}

/** When a succeeded scan of the project (one it still holds) last completed; null when none. */
export async function lastSucceededAt(em: EntityManager, projectId: string): Promise<Date | null> {
  const row = await em.findOne(
    KnownScan,
    { projectId, deletedAt: null, status: "succeeded", completedAt: { $ne: null } },
    { ...SNAPSHOT, fields: ["completedAt"], orderBy: { completedAt: "desc" } },
  );
  return row?.completedAt ?? null;
}
