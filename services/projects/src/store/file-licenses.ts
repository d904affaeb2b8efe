// Writes and reads of file_license_scans and file_license_detections: the scancode stage's first-party license
// detections per scan (docs/scancode.md). A scan's detections are replaced whole (a later attempt records again),
// in one transaction, the rows streamed in with COPY (raw SQL, ADR 5: bulk ingestion); reads and deletions go
// through the entities.
import type { EntityManager, MikroORM } from "@mikro-orm/postgresql";
import { bulkTransaction, containsPattern, SNAPSHOT } from "@sca/db";
import { FileLicenseDetectionRecord, FileLicenseScan } from "./entities/file-licenses.ts";

export interface FileLicenseStageRow {
  status: string;
  message: string;
  fileCount: number;
  scannedFileCount: number;
  truncated: boolean;
}

export interface FileLicenseDetectionRow {
  path: string;
  license: string;
  score: number;
  startLine: number;
  endLine: number;
  matcher: string;
  rule: string;
}

const DETECTION_COLUMNS = [
  "scan_id",
  "ordinal",
  "path",
  "license",
  "score",
  "start_line",
  "end_line",
  "matcher",
  "rule",
] as const;

/** Replaces the scan's stage outcome and detections; answers how many detections were stored. */
export async function recordFileLicenses(
  orm: MikroORM,
  scan: { scanId: string; projectId: string },
  stage: FileLicenseStageRow,
  detections: readonly FileLicenseDetectionRow[],
): Promise<number> {
  return bulkTransaction(orm, async (tx) => {
    await tx.statement("delete from file_license_detections where scan_id = $1", [scan.scanId]);
    await tx.statement(
      `insert into file_license_scans (scan_id, project_id, status, message, file_count, scanned_file_count,
         detection_count, truncated, recorded_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, now())
       on conflict (scan_id) do update set project_id = excluded.project_id, status = excluded.status,
         message = excluded.message, file_count = excluded.file_count,
         scanned_file_count = excluded.scanned_file_count, detection_count = excluded.detection_count,
         truncated = excluded.truncated, recorded_at = excluded.recorded_at`,
      [
        scan.scanId,
        scan.projectId,
        stage.status,
        stage.message,
        stage.fileCount,
        stage.scannedFileCount,
        detections.length,
        stage.truncated,
      ],
    );
    return tx.copyRows(
      "file_license_detections",
      DETECTION_COLUMNS,
      detections.map((d, i) => [scan.scanId, i, d.path, d.license, d.score, d.startLine, d.endLine, d.matcher, d.rule]),
    );
  });
}

export async function fileLicenseStageOf(em: EntityManager, scanId: string): Promise<FileLicenseStageRow | null> {
  const row = await em.findOne(
    FileLicenseScan,
    { scanId },
    { ...SNAPSHOT, fields: ["status", "message", "fileCount", "scannedFileCount", "truncated"] },
  );
  return row
    ? {
        status: row.status,
        message: row.message,
        fileCount: row.fileCount,
        scannedFileCount: row.scannedFileCount,
        truncated: row.truncated,
      }
    : null;
}

/** A page of the scan's detections in their recorded (path, start_line, license) order, and how many match. */
export async function fileLicensePage(
  em: EntityManager,
  scanId: string,
  filter: { path?: string },
  page: { limit: number; offset: number },
): Promise<{ items: FileLicenseDetectionRow[]; total: number }> {
  const [rows, total] = await em.findAndCount(
    FileLicenseDetectionRecord,
    filter.path ? { scanId, path: { $ilike: containsPattern(filter.path) } } : { scanId },
    {
      ...SNAPSHOT,
      fields: ["path", "license", "score", "startLine", "endLine", "matcher", "rule"],
      orderBy: { ordinal: "asc" },
      limit: page.limit,
      offset: page.offset,
    },
  );
  // MikroORM answers a double column as text unless told otherwise: the score is a number either way.
  const items = rows.map((r) => ({
    path: r.path,
    license: r.license,
    score: Number(r.score),
    startLine: r.startLine,
    endLine: r.endLine,
    matcher: r.matcher,
    rule: r.rule,
  }));
  return { items, total };
}

/** Drops the project's detections of these (deleted) scans, inside the caller's transaction; another project's stay. */
export async function deleteFileLicenses(
  em: EntityManager,
  projectId: string,
  scanIds: readonly string[],
): Promise<void> {
  if (scanIds.length === 0) return;
  const owned = { projectId, scanId: { $in: [...scanIds] } };
  const scans = await em.find(FileLicenseScan, owned, { ...SNAPSHOT, fields: ["scanId"] });
  if (scans.length > 0)
    await em.nativeDelete(FileLicenseDetectionRecord, { scanId: { $in: scans.map((r) => r.scanId) } });
  await em.nativeDelete(FileLicenseScan, owned);
}
