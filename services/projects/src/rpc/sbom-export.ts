// SbomExportService: the anchor's snapshot as an SBOM document, streamed. The project and the snapshot are found
// exactly as the component list finds them (inventory-reads.ts: hiding, anchors, their 404s); the document is
// written by the domain's writer while the store reads the components page by page (docs/sbom-export.md).
import { create } from "@bufbuild/protobuf";
import type { ConnectRouter, HandlerContext } from "@connectrpc/connect";
import { ProblemError, type FieldViolation } from "@sca/problem";
import { byteChunks } from "@sca/rpc";
import {
  ExportSbomResponseSchema,
  SbomExportService,
  type ExportSbomRequest,
  type ExportSbomResponse,
} from "@sca/proto/sca/projects/v1/sbom_pb.ts";
import { rejectViolations } from "../domain/component-list.ts";
import { componentIdOf } from "../domain/inventory-artefact.ts";
import {
  rootRefCandidate,
  SBOM_MEDIA_TYPES,
  sbomFileName,
  sbomFormatOf,
  sbomRootOf,
  sbomWriterOf,
  type SbomDocumentFacts,
  type SbomWriter,
} from "../domain/sbom-export/index.ts";
import {
  componentPagesByKey,
  edgesFrom,
  hasComponentKey,
  rootEdges,
  snapshotForExport,
} from "../store/inventory/sbom.ts";
import type { InventoryServiceDeps } from "./inventory-deps.ts";
import { anchoredSnapshot, anchorViolations, readableProject } from "./readable-inventory.ts";

/** Components read per query. */
const PAGE_SIZE = 500;
/** Bytes gathered before a chunk message is sent. */
const CHUNK_BYTES = 64 * 1024;

type EntityManager = ReturnType<InventoryServiceDeps["orm"]["em"]["fork"]>;

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

export function registerSbomExportService(router: ConnectRouter, deps: InventoryServiceDeps): void {
  router.service(SbomExportService, {
    async *exportSbom(req: ExportSbomRequest, ctx: HandlerContext): AsyncGenerator<ExportSbomResponse> {
      const project = await readableProject(deps, ctx, req.projectId);
      const v: FieldViolation[] = [];
      anchorViolations(req.anchor, v);
      const format = sbomFormatOf(req.format, v);
      rejectViolations(v);
      const scanId = (await anchoredSnapshot(deps, project.id, req.anchor))?.scanId;
      const em = deps.orm.em.fork();
      const snapshot = scanId ? await snapshotForExport(em, scanId) : null;
      if (!snapshot) throw ProblemError.notFound("The project has no succeeded scan to export yet.");
      const refTaken = await hasComponentKey(em, snapshot.scanId, rootRefCandidate(snapshot, project.slug));
      const facts: SbomDocumentFacts = {
        scanId: snapshot.scanId,
        ingestedAt: snapshot.ingestedAt,
        root: sbomRootOf(snapshot, project.slug, componentIdOf, refTaken),
        sourceFormat: snapshot.format,
        sourceSpecVersion: snapshot.specVersion,
        hasGraph: snapshot.edgeCount > 0,
      };
      yield create(ExportSbomResponseSchema, {
        part: {
          case: "header",
          value: {
            format,
            mediaType: SBOM_MEDIA_TYPES[format],
            fileName: sbomFileName(project.slug, format),
            scanId: snapshot.scanId,
          },
        },
      });
      const pieces = documentPieces(em, snapshot.scanId, sbomWriterOf(format, facts), facts.hasGraph);
      for await (const chunk of byteChunks(pieces, CHUNK_BYTES)) {
        if (ctx.signal.aborted) return;
        yield create(ExportSbomResponseSchema, { part: { case: "chunk", value: chunk } });
      }
    },
  });
}
