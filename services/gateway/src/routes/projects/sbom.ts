// GET /v1/projects/{id}/sbom: the anchor's snapshot (the component list's scan_id / release / newest) as an SBOM
// document, streamed from the projects service's SbomExportService as it writes it (docs/sbom-export.md).
import { z } from "zod";
import { ConnectError } from "@connectrpc/connect";
import { problemResponse } from "../../api/problem-schema.ts";
import { defineRoute, type Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";

const SBOM_FORMATS = ["cyclonedx-json", "cyclonedx-xml", "spdx-json"] as const;

const sbomQuery = z.object({
  format: z
    .enum(SBOM_FORMATS, { error: `must be one of ${SBOM_FORMATS.join(", ")}` })
    .default("cyclonedx-json")
    .meta({
      description:
        "cyclonedx-json (CycloneDX 1.6 JSON, the default), cyclonedx-xml (CycloneDX 1.6 XML), spdx-json (SPDX 2.3 JSON)",
    }),
  scan_id: z.uuid().optional().meta({ description: "A succeeded scan of the project (else 404); wins over release" }),
  release: z.string().max(255).optional().meta({ description: "Exact release label, trimmed (unknown: 404)" }),
});

const document = (description: string) => z.string().meta({ description });

export function sbomRoutes(ctx: GatewayContext): Route[] {
  const sbom = ctx.clients.projects.sbom;
  return [
    defineRoute({
      method: "get",
      path: "/v1/projects/{id}/sbom",
      summary: "Export a project's inventory as an SBOM",
      description:
        "The components and dependency graph of the anchor's snapshot (scan_id, a succeeded scan of the project, wins " +
        "over release; neither: the newest succeeded scan) as one document: CycloneDX 1.6 (JSON or XML) or SPDX 2.3 " +
        "JSON, with the snapshot's primary component as the root. The same scan gives the same bytes on every " +
        "request (serial number and namespace derived from the scan id, the ingestion time as timestamp, a fixed " +
        "order). Sent as an attachment named sbom-<slug>.cdx.json, .cdx.xml or .spdx.json.",
      tags: ["components"],
      operationId: "exportProjectSbom",
      auth: ctx.auth.route("caller"),
      request: { params: z.object({ id: z.uuid() }), query: sbomQuery },
      responses: {
        200: {
          description: "The SBOM document",
          content: {
            "application/vnd.cyclonedx+json; version=1.6": document("CycloneDX 1.6 JSON"),
            "application/vnd.cyclonedx+xml; version=1.6": document("CycloneDX 1.6 XML"),
            "application/spdx+json": document("SPDX 2.3 JSON"),
          },
          headers: z.object({
            "Content-Disposition": z.string().meta({ example: 'attachment; filename="sbom-shop.cdx.json"' }),
          }),
          stream: true,
        },
        404: problemResponse(
          "No such project (or not readable), no succeeded scan for scan_id / release, or none at all yet",
        ),
      },
      handler: async ({ params, query, call }) => {
        const answer = sbom.exportSbom(
          { projectId: params.id, format: query.format, anchor: { scanId: query.scan_id, release: query.release } },
          call,
        );
        const parts = answer[Symbol.asyncIterator]();
        // The header comes first: an error before it (404, 422) is still a problem document.
        const first = await parts.next();
        if (first.done || first.value.part.case !== "header")
          throw new ConnectError("the SBOM export answered without its header");
        const header = first.value.part.value;
        async function* bytes() {
          try {
            for (let next = await parts.next(); !next.done; next = await parts.next())
              if (next.value.part.case === "chunk") yield next.value.part.value;
          } finally {
            // A client that went away mid-document ends the call to projects too.
            await parts.return?.();
          }
        }
        return {
          status: 200,
          stream: bytes(),
          headers: {
            "Content-Type": header.mediaType,
            "Content-Disposition": `attachment; filename="${header.fileName}"`,
          },
        };
      },
    }),
  ];
}
