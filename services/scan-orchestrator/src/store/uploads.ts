// Upload rows (`scan_uploads`): the one module that reads or writes them (docs/adr/0005).
import type { EntityManager } from "@mikro-orm/postgresql";
import { column, rawQuery, SNAPSHOT } from "@sca/db";
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
/**
 * The oldest `limit` expired uploads no scan names. The naming test is in the query (NOT EXISTS, served by the
 * partial indexes on scans.sbom_upload_id, .source_archive_id and .image_archive_id), not applied to a page after the LIMIT: named
 * uploads stay as long as their scans, so a page of the oldest expired rows could be all named ones, every sweep,
 * and the unnamed ones behind them would never be reached.
 */
export async function expiredUnnamedUploads(
  em: EntityManager,
  now: Date,
  limit: number,
): Promise<{ id: string; artefactKey: string }[]> {
  const rows = await rawQuery(
    em,
    `select u.id, u.artefact_key from scan_uploads u
      where u.expires_at <= ?
        and not exists (select 1 from scans s where s.sbom_upload_id = u.id)
        and not exists (select 1 from scans s where s.source_archive_id = u.id)
        and not exists (select 1 from scans s where s.image_archive_id = u.id)
      order by u.expires_at, u.id
      limit ?`,
    [now, limit],
    { id: column.text, artefact_key: column.text },
  );
  return rows.map((r) => ({ id: r.id, artefactKey: r.artefact_key }));
}

export async function deleteUpload(em: EntityManager, id: string): Promise<void> {
  await em.nativeDelete(ScanUpload, { id });
}
