// One snapshot as an SBOM document, piece by piece: what the SBOM export streams and what signing signs, so the
// signed bytes are the export's bytes (docs/sbom-export.md, docs/signing.md). The rows come from the database (the
// export, a page at a time) or, for the copy ingestion keeps for signing, from the ingestion's memory.
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
  heldSnapshotRows,
  type HeldEdge,
  type SbomComponentRow,
  type SnapshotRows,
} from "../../domain/sbom-export/index.ts";
import { componentPagesByKey, edgesFrom, hasComponentKey, rootEdges, type SnapshotForExport } from "./sbom.ts";

/** Components read per query. */
const PAGE_SIZE = 500;

/** The snapshot's rows in the database. */
function storedRows(em: EntityManager, scanId: string): SnapshotRows {
  return {
    componentPages: () => componentPagesByKey(em, scanId, PAGE_SIZE),
    rootEdges: () => rootEdges(em, scanId),
    edgesFrom: (ids) => edgesFrom(em, scanId, ids),
  };
}

/** The document's pieces in order: the components in key order, then (with a graph) each depender's edges. */
async function* documentPieces(rows: SnapshotRows, writer: SbomWriter, hasGraph: boolean): AsyncGenerator<string> {
  yield writer.begin();
  for await (const page of rows.componentPages()) for (const c of page) yield writer.component(c);
  yield writer.endComponents();
  if (hasGraph) {
    yield writer.dependencies(null, await rows.rootEdges());
    for await (const page of rows.componentPages()) {
      const edges = await rows.edgesFrom(page.map((c) => c.id));
      for (const c of page) yield writer.dependencies(c, edges.get(c.id) ?? []);
    }
  }
  yield writer.end();
}

/** What the document says about itself; `refTaken`: a component has the root's natural ref as its key. */
function documentFactsOf(
  snapshot: SnapshotForExport,
  slug: string,
  identity: SbomIdentity,
  refTaken: boolean,
): SbomDocumentFacts {
  return {
    scanId: snapshot.scanId,
    ingestedAt: snapshot.ingestedAt,
    root: sbomRootOf(snapshot, slug, componentIdOf, refTaken),
    sourceFormat: snapshot.format,
    sourceSpecVersion: snapshot.specVersion,
    hasGraph: snapshot.edgeCount > 0,
    identity,
  };
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
  const facts = documentFactsOf(snapshot, slug, identity, refTaken);
  return documentPieces(storedRows(em, snapshot.scanId), sbomWriterOf(format, facts), facts.hasGraph);
}

/** All of a document's pieces as bytes (signing needs them at once; the export streams instead). */
async function documentBytes(pieces: AsyncIterable<string>): Promise<Buffer> {
  const parts: string[] = [];
  for await (const piece of pieces) parts.push(piece);
  return Buffer.from(parts.join(""), "utf8");
}

/** The whole document's bytes, read from the database. */
export async function sbomDocumentBytes(
  em: EntityManager,
  slug: string,
  snapshot: SnapshotForExport,
  format: SbomFormat,
  identity: SbomIdentity,
): Promise<Buffer> {
  return documentBytes(await sbomDocumentPieces(em, slug, snapshot, format, identity));
}

/** The CycloneDX JSON export of a snapshot whose rows are held in memory (an ingestion's): the same bytes. */
export async function heldSbomDocumentBytes(
  components: readonly SbomComponentRow[],
  edges: readonly HeldEdge[],
  slug: string,
  snapshot: SnapshotForExport,
  identity: SbomIdentity,
): Promise<Buffer> {
  const candidate = rootRefCandidate(snapshot, slug);
  const facts = documentFactsOf(
    snapshot,
    slug,
    identity,
    components.some((c) => c.key === candidate),
  );
  const writer = sbomWriterOf("cyclonedx-json", facts);
  return documentBytes(documentPieces(heldSnapshotRows(components, edges), writer, facts.hasGraph));
}
