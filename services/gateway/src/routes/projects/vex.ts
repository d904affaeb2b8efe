// VEX documents of a project (docs/findings.md): the export built from its findings' triage (OpenVEX 0.2.0 or
// CycloneDX 1.6) and the import of an OpenVEX or CycloneDX VEX document (team_admin, multipart field `file`).
import { z } from "zod";
import type { VexStatementOutcome } from "@sca/proto/sca/projects/v1/vulnerability_findings_pb.ts";
import { problemResponse } from "../../api/problem-schema.ts";
import { defineRoute, type Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";
import { multipartBytes } from "../../http/multipart.ts";

/** The largest VEX document an import reads. */
export const VEX_IMPORT_MAX_BYTES = 10 * 1024 ** 2;

const outcomeSchema = z.object({
  vulnerability: z.string(),
  product: z.string(),
  status: z.string().nullable(),
  finding_ids: z.array(z.uuid()),
  reason: z.string().nullable().meta({
    description: "Why nothing matched: no_finding, unresolved_product, no_product, unsupported_status",
  }),
});
const importSchema = z
  .object({
    format: z.enum(["openvex", "cyclonedx"]),
    statements: z.number().int(),
    findings_updated: z.number().int(),
    findings_pending_confirmation: z
      .number()
      .int()
      .meta({
        description:
          "Findings whose imported status the gate policy's approval_required_statuses names: recorded as a pending " +
          "change a different person confirms (docs/findings.md), not applied",
      }),
    matched: z.array(outcomeSchema),
    unmatched: z.array(outcomeSchema),
  })
  .meta({ id: "VexImportReport" });

const outcomeJson = (o: VexStatementOutcome) => ({
  vulnerability: o.vulnerability,
  product: o.product,
  status: o.status || null,
  finding_ids: o.findingIds,
  reason: o.reason || null,
});

export function vexRoutes(ctx: GatewayContext): Route[] {
  const findings = ctx.clients.projects.findings;
  const caller = ctx.auth.route("caller");
  const projectParams = z.object({ id: z.uuid() });
  return [
    defineRoute({
      method: "get",
      path: "/v1/projects/{id}/vex",
      summary: "Export a project's VEX document",
      description:
        "One statement per open finding of the newest succeeded scan, built from its triage: OpenVEX 0.2.0 " +
        "(format=openvex) or CycloneDX 1.6 with vulnerabilities[].analysis (format=cyclonedx).",
      tags: ["vulnerabilities"],
      operationId: "exportProjectVex",
      auth: caller,
      request: { params: projectParams, query: z.object({ format: z.enum(["openvex", "cyclonedx"]) }) },
      responses: {
        200: {
          description: "The VEX document",
          content: {
            "application/json": z.record(z.string(), z.unknown()).meta({ description: "OpenVEX 0.2.0" }),
            "application/vnd.cyclonedx+json": z.record(z.string(), z.unknown()).meta({ description: "CycloneDX 1.6" }),
          },
          stream: true,
        },
        422: problemResponse("format is not openvex or cyclonedx"),
        404: problemResponse("No such project, or not readable"),
      },
      handler: async ({ params, query, call }) => {
        const answer = await findings.exportVex({ projectId: params.id, format: query.format }, call);
        // One chunk: the document is built whole by projects (bounded by VEX_FINDINGS_MAX statements).
        const stream = (async function* () {
          yield await Promise.resolve(answer.document);
        })();
        return { status: 200, stream, headers: { "Content-Type": answer.mediaType } };
      },
    }),
    defineRoute({
      method: "post",
      path: "/v1/projects/{id}/vex/import",
      summary: "Import a VEX document into a project's findings",
      description:
        "team_admin. An OpenVEX (0.0.1 or 0.2.0) or CycloneDX VEX JSON document as multipart/form-data field `file` " +
        `(at most ${VEX_IMPORT_MAX_BYTES} bytes). Each statement's products (purls) and vulnerability ids (or ` +
        "aliases) are matched to the open findings of the newest succeeded scan, whose status they set; the answer " +
        "reports what matched and what did not.",
      tags: ["vulnerabilities"],
      operationId: "importProjectVex",
      auth: caller,
      request: {
        params: projectParams,
        streamedBody: {
          description: "The VEX document",
          content: { "multipart/form-data": z.object({ file: z.string().meta({ format: "binary" }) }) },
        },
      },
      responses: {
        200: { description: "What matched and what did not", schema: importSchema },
        400: problemResponse("The multipart body is malformed"),
        403: problemResponse("Below team_admin on the project's team, or a read-only key"),
        404: problemResponse("No such project, or not readable"),
        413: problemResponse("The document is too large"),
        422: problemResponse("No file part, or not an OpenVEX or CycloneDX JSON document"),
      },
      handler: async ({ params, req, call }) => {
        const document = await multipartBytes(req, "file", VEX_IMPORT_MAX_BYTES);
        const r = await findings.importVex({ projectId: params.id, document }, call);
        return {
          status: 200,
          body: {
            format: r.format as "openvex" | "cyclonedx",
            statements: r.statements,
            findings_updated: r.findingsUpdated,
            findings_pending_confirmation: r.findingsPendingConfirmation,
            matched: r.matched.map(outcomeJson),
            unmatched: r.unmatched.map(outcomeJson),
          },
        };
      },
    }),
  ];
}
