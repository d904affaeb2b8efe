// Signs each succeeded scan's CycloneDX export (group projects.sbom-signing, each event applied once by the
// idempotent consumer): the bytes the SBOM export serves for that scan, signed with the deployment's key or keyless,
// with the SLSA provenance of them; or, best effort, the reason it stays unsigned (docs/signing.md). The scan is
// already succeeded whatever happens here.
import { topicContract, TOPICS, type EventMeta } from "@sca/kafka";
import type { ArtefactStore } from "@sca/artefacts";
import type { Logger } from "@sca/log";
import type { IdleCollection } from "@sca/runtime";
import { ScanStateChangedSchema, type ScanStateChanged } from "@sca/proto/sca/events/v1/scans_pb.ts";
import type { EntityManager } from "@mikro-orm/postgresql";
import { isUuid } from "../domain/project-fields.ts";
import type { SbomIdentity } from "../domain/sbom-export/index.ts";
import { builderIdOf, provenanceStatement } from "../domain/sbom-signing/provenance.ts";
import { signingFileNames } from "../domain/sbom-signing/signing-files.ts";
import { signSbom, type SigningSettings } from "../signing/sbom-signer.ts";
import { snapshotForExport, type SnapshotForExport } from "../store/inventory/sbom.ts";
import { dropSigningCopy, signingCopy } from "../store/inventory/signing-copy.ts";
import { sbomDocumentBytes } from "../store/inventory/sbom-document.ts";
import { projectById, type ProjectRow } from "../store/projects.ts";
import { hasSbomSignature, recordSbomSignature } from "../store/sbom-signatures.ts";

export const SBOM_SIGNING_GROUP = "projects.sbom-signing";

export const signingNews = topicContract(TOPICS.domainEvents, ScanStateChangedSchema);

export interface SbomSigningDeps {
  settings: SigningSettings;
  identity: SbomIdentity;
  /** Where ingestion keeps the export for signing (store/inventory/signing-copy.ts). */
  artefacts: ArtefactStore;
  /** https://DOMAIN: the provenance's {base_url}. */
  baseUrl: string;
  /** SLSA_BUILDER_ID as configured (empty: derived from the base URL). */
  builderId: string;
  /** A large SBOM's bytes and signing are garbage once recorded: collected when the service is quiet. */
  memory: IdleCollection;
  logger: Logger;
}

/** The statuses after which a scan's copy kept for signing is of no more use. */
const FINAL_STATUSES = new Set(["succeeded", "failed", "cancelled"]);

export function sbomSigningHandler(deps: SbomSigningDeps) {
  return async (em: EntityManager, event: ScanStateChanged, meta: EventMeta): Promise<void> => {
    if (!FINAL_STATUSES.has(event.status) || !isUuid(event.scanId) || !isUuid(event.projectId)) return;
    const scanId = event.scanId.toLowerCase();
    // The copy is read only when it will be signed (34 MB at 50,000 components); dropped in every final state.
    const signs = event.status === "succeeded" && !(await hasSbomSignature(em, scanId));
    const copy = signs ? await signingCopy(deps.artefacts, scanId) : null;
    await dropSigningCopy(deps.artefacts, scanId);
    if (!signs) return;
    const [snapshot, project] = await Promise.all([
      snapshotForExport(em, scanId),
      projectById(em, event.projectId.toLowerCase()),
    ]);
    // Deleted since, or never ingested: nothing to sign.
    if (!snapshot || !project) return;
    await deps.memory.during(
      () => sign(deps, em, meta, copy, snapshot, project),
      () => snapshot.componentCount,
    );
  };
}

/** Signs the scan's export (the copy kept at ingestion, or written now) and records the signature or why not. */
async function sign(
  deps: SbomSigningDeps,
  em: EntityManager,
  meta: EventMeta,
  copy: Buffer | null,
  snapshot: SnapshotForExport,
  project: ProjectRow,
): Promise<void> {
  const scanId = snapshot.scanId;
  // The export kept at ingestion is these bytes, written once; without it, the export is written here.
  const sbom = copy ?? (await sbomDocumentBytes(em, project.slug, snapshot, "cyclonedx-json", deps.identity));
  const started = performance.now();
  const outcome = await signSbom(deps.settings, sbom, (sbomSha256) =>
    provenanceStatement({
      sbomFileName: signingFileNames(project.slug).sbom,
      sbomSha256,
      baseUrl: deps.baseUrl,
      builderId: builderIdOf(deps.builderId, deps.baseUrl),
      serviceVersion: deps.identity.toolVersion,
      projectId: project.id,
      scanId,
      release: snapshot.release,
      sourceFormat: `${snapshot.format} ${snapshot.specVersion}`.trim(),
      ingestedAt: snapshot.ingestedAt,
      signedAt: new Date(),
    }),
  );
  const base = { scanId, projectId: project.id };
  if ("unsigned" in outcome) {
    await recordSbomSignature(em, {
      ...base,
      unsignedReason: outcome.unsigned,
      model: null,
      sbomSha256: null,
      sbomSize: null,
      signature: null,
      publicKey: null,
      certificate: null,
      attestationCertificate: null,
      certificateIdentity: null,
      certificateIssuer: null,
      sigstoreBundle: null,
      attestation: null,
      attestationBundle: null,
    });
    deps.logger.info({ eventId: meta.eventId, scanId, reason: outcome.unsigned }, "SBOM left unsigned");
    return;
  }
  await recordSbomSignature(em, { ...base, unsignedReason: null, ...outcome.signed });
  deps.logger.info(
    {
      scanId,
      bytes: sbom.length,
      written: copy ? "at ingestion" : "now",
      ms: Math.round(performance.now() - started),
      attested: !!outcome.signed.attestation,
    },
    "SBOM signed",
  );
}
