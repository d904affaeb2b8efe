// known_scans: projects' copy of the scans it heard of (see the entity); the one module naming its columns.
import type { EntityManager } from "@mikro-orm/postgresql";
import { SNAPSHOT } from "@sca/db";
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

export interface ScanFigures {
  scanCount: number;
  releaseCount: number;
  latest: { scanId: string; status: string; createdAt: Date } | null;
}

/** The project's figures over the scans it holds (not deleted). */
export async function scanFigures(em: EntityManager, projectId: string): Promise<ScanFigures> {
  const live = { projectId, deletedAt: null };
  // One after the other: inside the consumer's transaction they share its one connection.
  const scanCount = await em.count(KnownScan, live);
  const releaseCount = await em.count(KnownScan, { ...live, status: "succeeded", release: { $ne: null } });
  const latest = await em.findOne(KnownScan, live, {
    ...SNAPSHOT,
    fields: ["scanId", "status", "scanCreatedAt"],
    orderBy: { scanCreatedAt: "desc", scanId: "desc" },
  });
  return {
    scanCount,
    releaseCount,
    latest: latest ? { scanId: latest.scanId, status: latest.status!, createdAt: latest.scanCreatedAt! } : null,
  };
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
