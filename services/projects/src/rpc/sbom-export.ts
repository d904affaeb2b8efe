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
import { SBOM_MEDIA_TYPES, sbomFileName, sbomFormatOf, type SbomIdentity } from "../domain/sbom-export/index.ts";
import { snapshotForExport } from "../store/inventory/sbom.ts";
import { sbomDocumentPieces } from "../store/inventory/sbom-document.ts";
import type { InventoryServiceDeps } from "./inventory-deps.ts";
import { anchoredSnapshot, anchorViolations, readableProject } from "./readable-inventory.ts";

/** Bytes gathered before a chunk message is sent. */
const CHUNK_BYTES = 64 * 1024;

export function registerSbomExportService(
  router: ConnectRouter,
  deps: InventoryServiceDeps & { sbomIdentity: SbomIdentity },
): void {
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
      const pieces = await sbomDocumentPieces(em, project.slug, snapshot, format, deps.sbomIdentity);
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
      for await (const chunk of byteChunks(pieces, CHUNK_BYTES)) {
        if (ctx.signal.aborted) return;
        yield create(ExportSbomResponseSchema, { part: { case: "chunk", value: chunk } });
      }
    },
  });
}
