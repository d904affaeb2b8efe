// sbom_signatures: each succeeded scan's signature and provenance, or why it has none (docs/signing.md); the one
// module naming its columns.
import type { EntityManager } from "@mikro-orm/postgresql";
import { SNAPSHOT } from "@sca/db";
import { SbomSignature, type SbomSignatureRow } from "./entities/sbom-signature.ts";

export type SbomSignatureRecord = Omit<SbomSignatureRow, "recordedAt">;

export async function sbomSignatureOf(em: EntityManager, scanId: string): Promise<SbomSignatureRecord | null> {
  return em.findOne(SbomSignature, { scanId }, SNAPSHOT);
}

export async function hasSbomSignature(em: EntityManager, scanId: string): Promise<boolean> {
  return (await em.count(SbomSignature, { scanId })) > 0;
}

/** Records the outcome once: a redelivered event finds it recorded and changes nothing. */
export async function recordSbomSignature(em: EntityManager, r: SbomSignatureRecord): Promise<void> {
  await em.createQueryBuilder(SbomSignature).insert(r).onConflict("scanId").ignore().execute("run");
}
