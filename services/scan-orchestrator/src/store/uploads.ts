// Upload rows (`scan_uploads`): the one module that reads or writes them (docs/adr/0005).
import type { EntityManager } from "@mikro-orm/postgresql";
import { SNAPSHOT } from "@sca/db";
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
