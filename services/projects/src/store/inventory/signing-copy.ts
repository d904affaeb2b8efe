// The copy of a scan's CycloneDX export kept for the signer (docs/signing.md, "The copy kept for signing"): written
// once, at ingestion, from the rows the ingestion holds in memory anyway, and left in the artefact store beside the
// scan's inventory artefact. When the scan succeeds the signer signs these bytes instead of writing the export again
// from the database (seconds for a large snapshot), then deletes them; a scan that fails or is cancelled deletes
// them too. Missing (ingested before signing was configured, a failed write): the signer writes the export itself.
import { Readable } from "node:stream";
import type { EntityManager } from "@mikro-orm/postgresql";
import { artefactBytes, type ArtefactStore } from "@sca/artefacts";
import type { Logger } from "@sca/log";
import type { InventoryContents } from "../../domain/inventory-artefact.ts";
import type { SbomComponentRow, SbomIdentity } from "../../domain/sbom-export/index.ts";
import { snapshotForExport } from "./sbom.ts";
import { heldSbomDocumentBytes } from "./sbom-document.ts";
import { projectById } from "../projects.ts";

/** Where the copy of a scan lives: beside its inventory artefact. */
export function signingCopyKey(scanId: string): string {
  return `scans/${scanId}/sbom-signing.cdx.json`;
}

export interface SigningCopyDeps {
  artefacts: ArtefactStore;
  /** The deployment's SBOM_AUTHOR and SERVICE_VERSION: the export's metadata. */
  identity: SbomIdentity;
  logger: Logger;
}

function exportRowOf(c: InventoryContents["components"][number]): SbomComponentRow {
  return {
    id: c.id,
    componentId: c.componentId,
    key: c.key,
    type: c.type,
    group: c.groupName,
    name: c.name,
    version: c.version,
    purl: c.purl,
    cpe: c.cpe,
    hashes: c.hashes,
    declaredLicense: c.declaredLicense,
    concludedLicense: c.concludedLicense,
    licenseIds: c.licenseIds,
    supplier: c.supplier,
    author: c.author,
    description: c.description,
    dependencyScope: c.dependencyScope,
  };
}

/**
 * Writes the copy of a just ingested (committed) snapshot. Best effort: a failure is logged and leaves the signer
 * to write the export itself; the ingestion has succeeded either way.
 */
export async function keepSigningCopy(
  deps: SigningCopyDeps,
  em: EntityManager,
  scanId: string,
  projectId: string,
  contents: InventoryContents,
): Promise<void> {
  const started = performance.now();
  try {
    const [snapshot, project] = await Promise.all([snapshotForExport(em, scanId), projectById(em, projectId)]);
    if (!snapshot || !project) return;
    const bytes = await heldSbomDocumentBytes(
      contents.components.map(exportRowOf),
      contents.edges,
      project.slug,
      snapshot,
      deps.identity,
    );
    await deps.artefacts.put(signingCopyKey(scanId), Readable.from([bytes]), { maxBytes: bytes.length });
    deps.logger.info(
      { scanId, bytes: bytes.length, ms: Math.round(performance.now() - started) },
      "SBOM export kept for signing",
    );
  } catch (err) {
    deps.logger.warn({ scanId, err }, "SBOM export not kept for signing; the signer will write it");
  }
}

/** The copy's bytes, or null when there is none. */
export async function signingCopy(artefacts: ArtefactStore, scanId: string): Promise<Buffer | null> {
  return artefactBytes(artefacts, signingCopyKey(scanId));
}

export async function dropSigningCopy(artefacts: ArtefactStore, scanId: string): Promise<void> {
  await artefacts.delete(signingCopyKey(scanId));
}
