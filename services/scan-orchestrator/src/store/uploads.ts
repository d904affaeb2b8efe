// Upload rows (`scan_uploads`): the one module that reads or writes them (docs/adr/0005).
import type { EntityManager } from "@mikro-orm/postgresql";
import { SNAPSHOT } from "@sca/db";
import { Scan } from "./entities/scan.ts";
import { ScanUpload, type ScanUploadRow } from "./entities/scan-upload.ts";

export type { ScanUploadRow } from "./entities/scan-upload.ts";

export type NewUpload = Omit<ScanUploadRow, "createdAt">;

export async function insertUpload(em: EntityManager, upload: NewUpload): Promise<ScanUploadRow> {
  await em.insert(ScanUpload, upload);
  return (await uploadById(em, upload.id))!;
}

export async function uploadById(em: EntityManager, id: string): Promise<ScanUploadRow | null> {
  return em.findOne(ScanUpload, { id }, SNAPSHOT);
}

/** Uploads past their expiry that no scan names, oldest first (a named one stays while the scan lives). */
export async function expiredUnnamedUploads(em: EntityManager, now: Date, limit: number): Promise<ScanUploadRow[]> {
  const expired = await em.find(
    ScanUpload,
    { expiresAt: { $lte: now } },
    { ...SNAPSHOT, orderBy: { expiresAt: "asc" }, limit },
  );
  if (expired.length === 0) return [];
  const ids = expired.map((u) => u.id);
  const naming = await em.find(
    Scan,
    { $or: [{ sbomUploadId: { $in: ids } }, { sourceArchiveId: { $in: ids } }] },
    { ...SNAPSHOT, fields: ["sbomUploadId", "sourceArchiveId"] },
  );
  const named = new Set(naming.flatMap((s) => [s.sbomUploadId, s.sourceArchiveId]));
  return expired.filter((u) => !named.has(u.id));
}

export async function deleteUpload(em: EntityManager, id: string): Promise<void> {
  await em.nativeDelete(ScanUpload, { id });
}
