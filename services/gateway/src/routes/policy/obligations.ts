// A project's license obligations and their fulfilments (ObligationService; docs/obligations.md): the obligations of
// the newest succeeded scan (sort, filter, offset paging), one obligation with the expressions carrying it, the
// fulfilment's PUT (If-Match optional: 412 with current_version when stale) and DELETE, and the fulfilment list.
import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import { z } from "zod";
import { ProblemError } from "@sca/problem";
import type { Fulfilment, Obligation } from "@sca/proto/sca/policy/v1/obligations_pb.ts";
import { hasIfMatch, ifMatchVersion } from "../../api/if-match.ts";
import { offsetPagination } from "../../api/pagination.ts";
import { problemResponse } from "../../api/problem-schema.ts";
import { defineRoute, type Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";
import { PROJECT_PAGE_SIZE } from "@sca/paging";

const TAGS = ["obligations"];
const CATEGORIES = ["allowed", "conditional", "forbidden"] as const;

const iso = (t: Timestamp | undefined) => (t ? timestampDate(t).toISOString() : null);

const fulfilmentSchema = z
  .object({
    id: z.uuid(),
    project_id: z.uuid(),
    obligation_id: z.uuid(),
    obligation: z.string().meta({ description: "The obligation's code, as when it was fulfilled" }),
    license: z.string(),
    note: z.string().nullable(),
    evidence_url: z.string().nullable(),
    fulfilled_by_user_id: z.uuid().nullable(),
    version: z.number().int().meta({ description: "The If-Match counter: 1 when recorded, +1 on every change" }),
    created_at: z.string(),
    updated_at: z.string(),
    current: z.boolean().meta({ description: "Whether the newest succeeded scan still carries the obligation" }),
  })
  .meta({ id: "ObligationFulfilment" });

const obligationSchema = z
  .object({
    id: z.uuid().meta({ description: "Stable for the project, license and code across scans" }),
    project_id: z.uuid(),
    obligation: z.string().meta({ description: "Code, e.g. include-license-text (docs/license-catalog.md)" }),
    title: z.string(),
    license: z.string().meta({ description: "The SPDX id or reference whose terms carry it" }),
    license_category: z.enum(CATEGORIES),
    component_count: z.number().int(),
    fulfilled: z.boolean(),
    fulfilment: fulfilmentSchema.nullable(),
    scan_id: z.uuid(),
  })
  .meta({ id: "Obligation" });

const obligationDetailSchema = obligationSchema
  .extend({
    expressions: z.array(z.object({ expression: z.string().nullable(), component_count: z.number().int() })),
  })
  .meta({ id: "ObligationDetail" });

function fulfilmentJson(f: Fulfilment): z.input<typeof fulfilmentSchema> {
  return {
    id: f.id,
    project_id: f.projectId,
    obligation_id: f.obligationId,
    obligation: f.obligation,
    license: f.license,
    note: f.note ?? null,
    evidence_url: f.evidenceUrl ?? null,
    fulfilled_by_user_id: f.fulfilledByUserId ?? null,
    version: f.version,
    created_at: iso(f.createdAt)!,
    updated_at: iso(f.updatedAt)!,
    current: f.current,
  };
}

function obligationJson(o: Obligation): z.input<typeof obligationSchema> {
  return {
    id: o.id,
    project_id: o.projectId,
    obligation: o.obligation,
    title: o.title,
    license: o.license,
    license_category: o.licenseCategory as (typeof CATEGORIES)[number],
    component_count: o.componentCount,
    fulfilled: o.fulfilled,
    fulfilment: o.fulfilment ? fulfilmentJson(o.fulfilment) : null,
    scan_id: o.scanId,
  };
}

const obligationQuery = z.object({
  sort: z
    .string()
    .max(200)
    .optional()
    .meta({
      description:
        "Comma-separated fields among license, obligation, license_category, component_count, fulfilled; a leading - " +
        "sorts that field descending. Default: license, then obligation",
    }),
  fulfilled: z
    .enum(["true", "false"])
    .optional()
    .transform((v) => (v === undefined ? undefined : v === "true"))
    .meta({ description: "Only fulfilled (true) or open (false) obligations" }),
});

const fulfilmentBody = z
  .object({
    note: z.string().max(4000).nullable().optional().meta({ description: "What was done; at most 4000 characters" }),
    evidence_url: z
      .string()
      .max(2048)
      .nullable()
      .optional()
      .meta({ description: "Where the evidence is (http or https URL)" }),
  })
  .meta({ id: "ObligationFulfilmentInput" });

const etagHeader = z.object({ ETag: z.string().meta({ description: 'The fulfilment\'s version, quoted ("3")' }) });
const projectParams = z.object({ id: z.uuid() });
const obligationParams = z.object({ id: z.uuid(), obligation_id: z.uuid() });
const noProject = problemResponse("No such project, or not readable by the caller");

export function obligationRoutes(ctx: GatewayContext): Route[] {
  const obligations = ctx.clients.policy.obligations;
  const caller = ctx.auth.route("caller");
  return [
    defineRoute({
      method: "get",
      path: "/v1/projects/{id}/obligations",
      summary: "List a project's license obligations",
      description:
        "One obligation per license and obligation code, derived from the licenses of the newest succeeded scan's " +
        "components, judged for the project's distribution_model and ai_usage_context under the license policy in " +
        "force. A project without a succeeded scan has none.",
      tags: TAGS,
      operationId: "listObligations",
      auth: caller,
      request: {
        params: projectParams,
        query: offsetPagination.query(PROJECT_PAGE_SIZE).extend(obligationQuery.shape),
      },
      responses: {
        200: { description: "A page of obligations", schema: offsetPagination.envelope(obligationSchema) },
        404: noProject,
        422: problemResponse("A bad limit, offset, sort or fulfilled"),
      },
      handler: async ({ params, query, call }) => {
        const page = await obligations.listObligations(
          {
            projectId: params.id,
            sort: query.sort ?? "",
            limit: query.limit,
            offset: query.offset,
            fulfilled: query.fulfilled,
          },
          call,
        );
        return { status: 200, body: offsetPagination.page(page.items.map(obligationJson), page.total, query) };
      },
    }),
    defineRoute({
      method: "get",
      path: "/v1/projects/{id}/obligations/{obligation_id}",
      summary: "Get one of a project's license obligations",
      description: "The obligation with its fulfilment and the license expressions that carry it.",
      tags: TAGS,
      operationId: "getObligation",
      auth: caller,
      request: { params: obligationParams },
      responses: {
        200: { description: "The obligation", schema: obligationDetailSchema },
        404: problemResponse("No such project (or not readable), or the project has no such obligation"),
      },
      handler: async ({ params, call }) => {
        const answer = await obligations.getObligation(
          { projectId: params.id, obligationId: params.obligation_id },
          call,
        );
        return {
          status: 200,
          body: {
            ...obligationJson(answer.obligation!),
            expressions: answer.expressions.map((e) => ({
              expression: e.expression || null,
              component_count: e.componentCount,
            })),
          },
        };
      },
    }),
    defineRoute({
      method: "put",
      path: "/v1/projects/{id}/obligations/{obligation_id}/fulfilment",
      summary: "Record or replace an obligation's fulfilment",
      description:
        "Developer or above on the project's team. If-Match is optional: when given it must carry the fulfilment's " +
        "current version (a mismatch, or a fulfilment not recorded yet, is 412 with current_version). 201 when it " +
        "recorded the fulfilment, 200 when it replaced it (the same fields again change nothing). Audited.",
      tags: TAGS,
      operationId: "putObligationFulfilment",
      auth: caller,
      request: { params: obligationParams, body: fulfilmentBody },
      responses: {
        200: { description: "The fulfilment, replaced", schema: fulfilmentSchema, headers: etagHeader },
        201: { description: "The fulfilment, recorded", schema: fulfilmentSchema, headers: etagHeader },
        403: problemResponse("Below developer on the project's team, or a read-only key"),
        404: problemResponse("No such project (or not readable), or the project has no such obligation"),
        412: problemResponse("If-Match is not the current version (current_version says which is)"),
        422: problemResponse("A bad note or evidence_url, or an If-Match naming no version"),
      },
      handler: async ({ params, body, req, call }) => {
        const expected = ifMatchVersion(req);
        if (expected === null && hasIfMatch(req))
          throw ProblemError.validation([
            { path: "header.if-match", message: 'must carry the fulfilment\'s version, e.g. "1"' },
          ]);
        const answer = await obligations.putFulfilment(
          {
            projectId: params.id,
            obligationId: params.obligation_id,
            note: body.note ?? undefined,
            evidenceUrl: body.evidence_url ?? undefined,
            expectedVersion: expected ?? undefined,
          },
          call,
        );
        const f = answer.fulfilment!;
        return {
          status: answer.created ? 201 : 200,
          body: fulfilmentJson(f),
          headers: { ETag: `"${f.version}"` },
        };
      },
    }),
    defineRoute({
      method: "delete",
      path: "/v1/projects/{id}/obligations/{obligation_id}/fulfilment",
      summary: "Remove an obligation's fulfilment",
      description:
        "Developer or above on the project's team. 204 whether or not one was recorded; a fulfilment left from an " +
        "obligation the newest scan no longer carries can still be removed. Audited.",
      tags: TAGS,
      operationId: "deleteObligationFulfilment",
      auth: caller,
      request: { params: obligationParams },
      responses: {
        204: { description: "Removed, or there was none" },
        403: problemResponse("Below developer on the project's team, or a read-only key"),
        404: problemResponse("No such project (or not readable), or neither such an obligation nor its fulfilment"),
      },
      handler: async ({ params, call }) => {
        await obligations.deleteFulfilment({ projectId: params.id, obligationId: params.obligation_id }, call);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: "get",
      path: "/v1/projects/{id}/obligation-fulfilments",
      summary: "List a project's obligation fulfilments",
      description:
        "Every fulfilment recorded for the project, newest change first; current says whether the newest succeeded " +
        "scan still carries its obligation.",
      tags: TAGS,
      operationId: "listObligationFulfilments",
      auth: caller,
      request: { params: projectParams, query: offsetPagination.query(PROJECT_PAGE_SIZE) },
      responses: {
        200: { description: "A page of fulfilments", schema: offsetPagination.envelope(fulfilmentSchema) },
        404: noProject,
        422: problemResponse("A bad limit or offset"),
      },
      handler: async ({ params, query, call }) => {
        const page = await obligations.listFulfilments(
          { projectId: params.id, limit: query.limit, offset: query.offset },
          call,
        );
        return { status: 200, body: offsetPagination.page(page.items.map(fulfilmentJson), page.total, query) };
      },
    }),
  ];
}
