// Malicious-package waivers of a project (MaliciousWaiverService): a team_admin lets the build gate pass one flagged
// package version for at most MALICIOUS_WAIVE_MAX_DAYS days. The spec caps the days but names no route: these paths
// are ours (docs/enrichment-feeds.md, "Waivers").
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { z } from "zod";
import type { MaliciousWaiver } from "@sca/proto/sca/projects/v1/malicious_waivers_pb.ts";
import { booleanParam } from "../../api/query-params.ts";
import { problemResponse } from "../../api/problem-schema.ts";
import { defineRoute, type Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";

const STATES = ["active", "expired", "revoked"] as const;

const waiverSchema = z
  .object({
    id: z.uuid(),
    project_id: z.uuid(),
    purl: z.string().meta({ description: "The flagged component's purl, its version included" }),
    reason: z.string(),
    created_by_user_id: z.uuid().nullable(),
    created_at: z.string(),
    expires_at: z.string().meta({ description: "The gate counts the package as malicious again from then" }),
    revoked_at: z.string().nullable(),
    state: z.enum(STATES),
  })
  .meta({ id: "MaliciousWaiver" });

const waiverJson = (w: MaliciousWaiver): z.input<typeof waiverSchema> => ({
  id: w.id,
  project_id: w.projectId,
  purl: w.purl,
  reason: w.reason,
  created_by_user_id: w.createdByUserId ?? null,
  created_at: timestampDate(w.createdAt!).toISOString(),
  expires_at: timestampDate(w.expiresAt!).toISOString(),
  revoked_at: w.revokedAt ? timestampDate(w.revokedAt).toISOString() : null,
  state: w.state as (typeof STATES)[number],
});

const createBody = z.strictObject({
  purl: z.string().min(1).max(2048).meta({ description: "The flagged component's purl, as the inventory holds it" }),
  reason: z.string().min(1).max(2000),
  // 3650 is the most MALICIOUS_WAIVE_MAX_DAYS may be: projects checks the deployment's own cap; a larger number never
  // reaches the int32 of the contract.
  days: z.number().int().min(1).max(3650).meta({ description: "1 to MALICIOUS_WAIVE_MAX_DAYS (30)" }),
});

const TAGS = ["projects"];
const notAdmin = problemResponse("Not a team_admin of the project's team (or not a member)");
const missing = problemResponse("No such project (or waiver)");

export function maliciousWaiverRoutes(ctx: GatewayContext): Route[] {
  const waivers = ctx.clients.projects.maliciousWaivers;
  const caller = ctx.auth.route("caller");
  const params = z.object({ id: z.uuid() });
  return [
    defineRoute({
      method: "get",
      path: "/v1/projects/{id}/malicious-waivers",
      summary: "List a project's malicious-package waivers",
      description:
        "Any reader of the project. Active waivers, newest first; include_inactive adds expired and revoked ones.",
      tags: TAGS,
      operationId: "listMaliciousWaivers",
      auth: caller,
      request: { params, query: z.object({ include_inactive: booleanParam() }) },
      responses: {
        200: {
          description: "The waivers",
          schema: z.object({ items: z.array(waiverSchema), total: z.number().int().min(0) }),
        },
        403: problemResponse("Not a member of the project's team"),
        404: missing,
      },
      handler: async ({ params, query, call }) => {
        const answer = await waivers.listMaliciousWaivers(
          { projectId: params.id, includeInactive: query.include_inactive ?? false },
          call,
        );
        return { status: 200, body: { items: answer.items.map(waiverJson), total: answer.total } };
      },
    }),
    defineRoute({
      method: "post",
      path: "/v1/projects/{id}/malicious-waivers",
      summary: "Waive a flagged malicious package for a project",
      description:
        "team_admin of the project's team (super_admin anywhere). The build gate does not count a flagged component " +
        "with this purl until the waiver expires (days from now, at most MALICIOUS_WAIVE_MAX_DAYS) or is revoked; " +
        "its gate result counts it in malicious_waived_count. Audited (malicious_waiver.created).",
      tags: TAGS,
      operationId: "createMaliciousWaiver",
      auth: caller,
      request: { params, body: createBody },
      responses: {
        201: { description: "The waiver", schema: waiverSchema },
        403: notAdmin,
        404: missing,
      },
      handler: async ({ params, body, call }) => {
        const { waiver } = await waivers.createMaliciousWaiver({ projectId: params.id, ...body }, call);
        return { status: 201, body: waiverJson(waiver!) };
      },
    }),
    defineRoute({
      method: "delete",
      path: "/v1/projects/{id}/malicious-waivers/{waiver_id}",
      summary: "Revoke a malicious-package waiver",
      description:
        "team_admin. Ends an active waiver now (an expired or revoked one stays as it is: 204). Audited " +
        "(malicious_waiver.revoked).",
      tags: TAGS,
      operationId: "revokeMaliciousWaiver",
      auth: caller,
      request: { params: z.object({ id: z.uuid(), waiver_id: z.uuid() }) },
      responses: { 204: { description: "Revoked" }, 403: notAdmin, 404: missing },
      handler: async ({ params, call }) => {
        await waivers.revokeMaliciousWaiver({ projectId: params.id, waiverId: params.waiver_id }, call);
        return { status: 204 };
      },
    }),
  ];
}
