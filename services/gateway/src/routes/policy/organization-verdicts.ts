// Organization verdicts (OrganizationVerdictService): an organization's rulings on components, started and moved by
// its writers (a super_admin, a group_admin of a team of it), listed for every member with the deliberation and
// names only for writers, and seen from a project of the organization. The spec gives their shapes but not their
// paths; these are ours (docs/approvals.md).
import { z } from "zod";
import { NUMBERED_PAGE_SIZE } from "@sca/paging";
import { ifMatchVersion, versionEtag, versionEtagHeader } from "../../api/if-match.ts";
import { pageSizePagination } from "../../api/pagination.ts";
import { problemResponse } from "../../api/problem-schema.ts";
import { defineRoute, type Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";
import {
  projectVerdictJson,
  projectVerdictSchema,
  statusList,
  VERDICT_STATUSES,
  verdictJson,
  verdictSchema,
} from "./approval-views.ts";

const TAGS = ["organization verdicts"];
const organizationParams = z.object({ organization_id: z.uuid() });
const notWriter = problemResponse("A member below group_admin in the organization, or an API key");
const outsider = problemResponse("No such organization, or not a member of it");

const startBody = z
  .object({
    component_id: z.uuid(),
    justification: z.string().max(4000).meta({ description: "The published reason: at least 10 characters" }),
  })
  .meta({ id: "OrganizationVerdictStart" });

const moveBody = z
  .object({
    status: z.enum(VERDICT_STATUSES),
    note: z.string().max(4000).nullable().optional().meta({ description: "The deliberation, seen by writers only" }),
  })
  .meta({ id: "OrganizationVerdictMove" });

export function organizationVerdictRoutes(ctx: GatewayContext): Route[] {
  const verdicts = ctx.clients.policy.verdicts;
  const caller = ctx.auth.route("caller");
  return [
    defineRoute({
      method: "get",
      path: "/v1/organizations/{organization_id}/verdicts",
      summary: "List an organization's verdicts",
      description:
        "Every member of the organization; newest first. The published reason (justification) goes to everyone; " +
        "decision_note, requested_by_user_id and decided_by_user_id only to writers (null for others).",
      tags: TAGS,
      operationId: "listOrganizationVerdicts",
      auth: caller,
      request: {
        params: organizationParams,
        query: pageSizePagination.query(NUMBERED_PAGE_SIZE).extend({
          status: statusList().meta({ description: `${VERDICT_STATUSES.join(", ")}; repeatable or comma-separated` }),
          "status[]": statusList(),
        }),
      },
      responses: {
        200: { description: "A page of verdicts", schema: pageSizePagination.envelope(verdictSchema) },
        403: problemResponse("An API key"),
        404: outsider,
      },
      handler: async ({ params, query, call }) => {
        const list = await verdicts.listVerdicts(
          {
            organizationId: params.organization_id,
            status: [...query.status, ...query["status[]"]],
            page: pageSizePagination.request(query),
          },
          call,
        );
        return {
          status: 200,
          body: pageSizePagination.page(list.items.map(verdictJson), list.page?.total ?? 0, query),
        };
      },
    }),
    defineRoute({
      method: "post",
      path: "/v1/organizations/{organization_id}/verdicts",
      summary: "Start a verdict on a component",
      description:
        "A writer of the organization. The ruling starts under_review; at most one per organization and component " +
        "(409 carries the existing verdict_id).",
      tags: TAGS,
      operationId: "startOrganizationVerdict",
      auth: caller,
      request: { params: organizationParams, body: startBody },
      responses: {
        201: { description: "The verdict", schema: verdictSchema, headers: versionEtagHeader("verdict") },
        403: notWriter,
        404: outsider,
        409: problemResponse("The organization already has a verdict on the component"),
      },
      handler: async ({ params, body, call }) => {
        const { verdict } = await verdicts.startVerdict(
          { organizationId: params.organization_id, componentId: body.component_id, justification: body.justification },
          call,
        );
        return { status: 201, body: verdictJson(verdict!), headers: versionEtag(verdict!.version) };
      },
    }),
    defineRoute({
      method: "patch",
      path: "/v1/organizations/{organization_id}/verdicts/{verdict_id}",
      summary: "Move a verdict",
      description:
        "A writer of the organization moves the ruling to another status (under_review, approved, rejected); the " +
        "same status again is 409. An optional If-Match must then be the current version (412 otherwise).",
      tags: TAGS,
      operationId: "moveOrganizationVerdict",
      auth: caller,
      request: { params: organizationParams.extend({ verdict_id: z.uuid() }), body: moveBody },
      responses: {
        200: {
          description: "The verdict after the move",
          schema: verdictSchema,
          headers: versionEtagHeader("verdict"),
        },
        403: notWriter,
        404: problemResponse("No such organization or verdict, or not a member of the organization"),
        409: problemResponse("The verdict already has this status"),
        412: problemResponse("If-Match is not the current version (current_version says which is)"),
      },
      handler: async ({ params, body, req, call }) => {
        const expectedVersion = ifMatchVersion(req) ?? undefined;
        const { verdict } = await verdicts.moveVerdict(
          {
            organizationId: params.organization_id,
            verdictId: params.verdict_id,
            status: body.status,
            note: body.note ?? undefined,
            expectedVersion,
          },
          call,
        );
        return { status: 200, body: verdictJson(verdict!), headers: versionEtag(verdict!.version) };
      },
    }),
    defineRoute({
      method: "get",
      path: "/v1/projects/{project_id}/components/{component_id}/verdict",
      summary: "The organization's verdict on a component, seen from a project",
      description:
        "Anyone who may read the project. A verdict of the project's organization applies to each of its projects " +
        "(scope organization).",
      tags: TAGS,
      operationId: "getProjectComponentVerdict",
      auth: caller,
      request: { params: z.object({ project_id: z.uuid(), component_id: z.uuid() }) },
      responses: {
        200: { description: "The verdict as it applies to the project", schema: projectVerdictSchema },
        403: problemResponse("An API key"),
        404: problemResponse("No such project (or not readable), or no verdict on the component"),
      },
      handler: async ({ params, call }) => {
        const { verdict } = await verdicts.getProjectVerdict(
          { projectId: params.project_id, componentId: params.component_id },
          call,
        );
        return { status: 200, body: projectVerdictJson(verdict!) };
      },
    }),
  ];
}
