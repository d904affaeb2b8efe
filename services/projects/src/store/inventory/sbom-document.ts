// One snapshot as an SBOM document, piece by piece: what the SBOM export streams and what signing signs, so the
// signed bytes are the export's bytes (docs/sbom-export.md, docs/signing.md).
import type { EntityManager } from "@mikro-orm/postgresql";
import { componentIdOf } from "../../domain/inventory-artefact.ts";
import {
  rootRefCandidate,
  sbomRootOf,
  sbomWriterOf,
  type SbomDocumentFacts,
  type SbomFormat,
  type SbomIdentity,
  type SbomWriter,
} from "../../domain/sbom-export/index.ts";
import { componentPagesByKey, edgesFrom, hasComponentKey, rootEdges, type SnapshotForExport } from "./sbom.ts";

/** Components read per query. */
const PAGE_SIZE = 500;

/** The document's pieces in order: the components in key order, then (with a graph) each depender's edges. */
async function* documentPieces(
  em: EntityManager,
  scanId: string,
  writer: SbomWriter,
  hasGraph: boolean,
): AsyncGenerator<string> {
  yield writer.begin();
  for await (const page of componentPagesByKey(em, scanId, PAGE_SIZE)) for (const c of page) yield writer.component(c);
  yield writer.endComponents();
  if (hasGraph) {
    yield writer.dependencies(null, await rootEdges(em, scanId));
    for await (const page of componentPagesByKey(em, scanId, PAGE_SIZE)) {
      const edges = await edgesFrom(
        em,
        scanId,
        page.map((c) => c.id),
      );
      for (const c of page) yield writer.dependencies(c, edges.get(c.id) ?? []);
    }
  }
  yield writer.end();
}

/** The snapshot of the project (by its slug, which never changes) as `format`, written while it is read. */
export async function sbomDocumentPieces(
  em: EntityManager,
  slug: string,
  snapshot: SnapshotForExport,
  format: SbomFormat,
  identity: SbomIdentity,
): Promise<AsyncGenerator<string>> {
  const refTaken = await hasComponentKey(em, snapshot.scanId, rootRefCandidate(snapshot, slug));
  const facts: SbomDocumentFacts = {
    scanId: snapshot.scanId,
    ingestedAt: snapshot.ingestedAt,
    root: sbomRootOf(snapshot, slug, componentIdOf, refTaken),
    sourceFormat: snapshot.format,
    sourceSpecVersion: snapshot.specVersion,
    hasGraph: snapshot.edgeCount > 0,
    identity,
  };
  return documentPieces(em, snapshot.scanId, sbomWriterOf(format, facts), facts.hasGraph);
}

/** The whole document's bytes (signing needs them at once; the export streams instead). */
export async function sbomDocumentBytes(
  em: EntityManager,
  slug: string,
  snapshot: SnapshotForExport,
  format: SbomFormat,
  identity: SbomIdentity,
): Promise<Buffer> {
  const parts: string[] = [];
  for await (const piece of await sbomDocumentPieces(em, slug, snapshot, format, identity)) parts.push(piece);
  return Buffer.from(parts.join(""), "utf8");
}
