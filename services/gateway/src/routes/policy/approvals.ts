// /v1/approvals (ApprovalService): create, the team-scoped list with its filters, one request with its version as
// ETag, the If-Match transition (412 with current_version on a stale version) and delete. docs/approvals.md.
import { z } from "zod";
import { NUMBERED_PAGE_SIZE } from "@sca/paging";
import { requiredIfMatch, versionEtag, versionEtagHeader } from "../../api/if-match.ts";
import { pageSizePagination } from "../../api/pagination.ts";
import { problemResponse } from "../../api/problem-schema.ts";
import { defineRoute, type Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";
import { APPROVAL_ACTIONS, approvalJson, approvalQuery, approvalSchema, stamp } from "./approval-views.ts";

const TAGS = ["approvals"];
const approvalParams = z.object({ approval_id: z.uuid() });
const notPerson = problemResponse("An API key: approvals are for signed-in people");
const hidden = problemResponse("No such approval request, or not of the caller's teams");
const etagHeader = versionEtagHeader("approval request");

const createBody = z.object({ project_id: z.uuid(), component_id: z.uuid() }).meta({ id: "ApprovalCreate" });

const transitionBody = z
  .object({
    action: z.enum(APPROVAL_ACTIONS),
    decision_note: z.string().max(4000).nullable().optional(),
  })
  .meta({ id: "ApprovalTransition" });

export function approvalRoutes(ctx: GatewayContext): Route[] {
  const approvals = ctx.clients.policy.approvals;
  const caller = ctx.auth.route("caller");
  return [
    defineRoute({
      method: "get",
      path: "/v1/approvals",
      summary: "List approval requests",
      description:
        "The requests of the caller's teams (a super_admin sees all), newest first. A project_id or team_id outside " +
        "the caller's teams gives an empty page.",
      tags: TAGS,
      operationId: "listApprovals",
      auth: caller,
      request: { query: pageSizePagination.query(NUMBERED_PAGE_SIZE).extend(approvalQuery.shape) },
      responses: {
        200: { description: "A page of approval requests", schema: pageSizePagination.envelope(approvalSchema) },
        403: notPerson,
      },
      handler: async ({ query, call }) => {
        const list = await approvals.listApprovals(
          {
            filter: {
              status: query.status,
              teamId: query.team_id,
              projectId: query.project_id,
              requestedByUserId: query.requested_by_user_id,
              from: stamp(query.from_dt),
              to: stamp(query.to_dt),
            },
            page: pageSizePagination.request(query),
          },
          call,
        );
        return {
          status: 200,
          body: pageSizePagination.page(list.items.map(approvalJson), list.page?.total ?? 0, query),
        };
      },
    }),
    defineRoute({
      method: "post",
      path: "/v1/approvals",
      summary: "Request approval of a component of a project",
      description:
        "Any member of the project's team. The component is one of the project's latest inventory (by its " +
        "component_id). The request starts pending at version 1.",
      tags: TAGS,
      operationId: "createApproval",
      auth: caller,
      request: { body: createBody },
      responses: {
        201: { description: "The approval request", schema: approvalSchema, headers: etagHeader },
        403: notPerson,
        404: problemResponse("No such project or component, or not a member of the project's team"),
      },
      handler: async ({ body, call }) => {
        const { approval } = await approvals.createApproval(
          { projectId: body.project_id, componentId: body.component_id },
          call,
        );
        return { status: 201, body: approvalJson(approval!), headers: versionEtag(approval!.version) };
      },
    }),
    defineRoute({
      method: "get",
      path: "/v1/approvals/{approval_id}",
      summary: "Get an approval request",
      description: "ETag carries its version, for the If-Match of a transition.",
      tags: TAGS,
      operationId: "getApproval",
      auth: caller,
      request: { params: approvalParams },
      responses: {
        200: { description: "The approval request", schema: approvalSchema, headers: etagHeader },
        403: notPerson,
        404: hidden,
      },
      handler: async ({ params, call }) => {
        const { approval } = await approvals.getApproval({ approvalId: params.approval_id }, call);
        return { status: 200, body: approvalJson(approval!), headers: versionEtag(approval!.version) };
      },
    }),
    defineRoute({
      method: "patch",
      path: "/v1/approvals/{approval_id}/transition",
      summary: "Move an approval request",
      description:
        "team_admin of the request's team or super_admin, never its requester. If-Match must carry the current " +
        "version (412 with current_version otherwise). pending may go under_review, approved or rejected; " +
        "under_review approved or rejected; approved and rejected are final (409).",
      tags: TAGS,
      operationId: "transitionApproval",
      auth: caller,
      request: { params: approvalParams, body: transitionBody },
      responses: {
        200: { description: "The request after the move", schema: approvalSchema, headers: etagHeader },
        403: problemResponse("Below team_admin on the team, the requester themself, or an API key"),
        404: hidden,
        409: problemResponse("The action is not allowed from the current status (allowed_actions says which are)"),
        412: problemResponse("If-Match is not the current version (current_version says which is)"),
        428: problemResponse("If-Match is missing or names no version"),
      },
      handler: async ({ params, body, req, call }) => {
        const expectedVersion = requiredIfMatch(req, "approval request");
        const { approval } = await approvals.transitionApproval(
          {
            approvalId: params.approval_id,
            action: body.action,
            decisionNote: body.decision_note ?? undefined,
            expectedVersion,
          },
          call,
        );
        return { status: 200, body: approvalJson(approval!), headers: versionEtag(approval!.version) };
      },
    }),
    defineRoute({
      method: "delete",
      path: "/v1/approvals/{approval_id}",
      summary: "Delete an approval request",
      description:
        "A pending or under_review request, by its requester, a team_admin of its team or a super_admin. A decided " +
        "request is kept as the record (409).",
      tags: TAGS,
      operationId: "deleteApproval",
      auth: caller,
      request: { params: approvalParams },
      responses: {
        204: { description: "Deleted" },
        403: problemResponse("Neither its requester nor team_admin of its team, or an API key"),
        404: hidden,
        409: problemResponse("The request is approved or rejected"),
      },
      handler: async ({ params, call }) => {
        await approvals.deleteApproval({ approvalId: params.approval_id }, call);
        return { status: 204 };
      },
    }),
  ];
}
