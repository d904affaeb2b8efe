// The uploads sweep (docs/scans.md, "Uploads"): an SBOM upload or source archive no scan named before it expired
// is deleted, its row and then its artefact (a crash in between leaves an orphan file, never a row without bytes).
import type { MikroORM } from "@mikro-orm/postgresql";
import type { ArtefactStore } from "@sca/artefacts";
import { deleteUpload, expiredUnnamedUploads } from "./uploads.ts";

const UPLOADS_PER_SWEEP = 500;

export async function sweepUploads(
  orm: MikroORM,
  artefacts: Pick<ArtefactStore, "delete">,
  now: Date,
  signal: AbortSignal,
  limit = UPLOADS_PER_SWEEP,
): Promise<{ deleted: number }> {
  const expired = await expiredUnnamedUploads(orm.em.fork(), now, limit);
  let deleted = 0;
  for (const upload of expired) {
    if (signal.aborted) break;
    await deleteUpload(orm.em.fork(), upload.id);
    await artefacts.delete(upload.artefactKey);
    deleted++;
  }
  return { deleted };
}
