// /v1/gate-policies (GatePolicyService): a team's gate policy (read, upsert and delete by its team_admin), an
// organization default (super_admin only; 404 to anyone else), the policy in effect for a project (with the
// deployment's EPSS availability from the scanner-runner), and the gate verdict of a project,
// GET /v1/projects/{id}/gate-result. The spec leaves the policy paths out; ours are in docs/gate.md.
import { z } from "zod";
import { problemResponse } from "../../api/problem-schema.ts";
import { defineRoute, type Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";
import {
  effectiveGatePolicyJson,
  effectiveGatePolicySchema,
  gatePolicyBody,
  gatePolicyFieldsOf,
  gatePolicyJson,
  gatePolicySchema,
  gateResultJson,
  gateResultSchema,
} from "./gate-views.ts";

const TAGS = ["gate policies"];
const teamParams = z.object({ team_id: z.uuid() });
const organizationParams = z.object({ organization_id: z.uuid() });
const projectParams = z.object({ project_id: z.uuid() });
const noTeam = problemResponse("No such team, or the caller is not a member of it");
const notTeamAdmin = problemResponse("A member of the team below team_admin, or an API key");
const noProject = problemResponse("No such project, or the caller may not read it");

export function gatePolicyRoutes(ctx: GatewayContext): Route[] {
  const gate = ctx.clients.policy.gatePolicies;
  const feeds = ctx.clients["scanner-runner"].feeds;
  const caller = ctx.auth.route("caller");
  return [
    defineRoute({
      method: "get",
      path: "/v1/projects/{id}/gate-result",
      summary: "The build gate's verdict on a project",
      description:
        "Judges the project's latest succeeded scan under the gate policy in effect: open critical findings " +
        "(VEX-closed ones do not count), forbidden licenses, the EPSS threshold (GATE_EPSS_ON_MISSING_DATA when no " +
        "open finding is scored) and known-malicious components. `passed` false lists the reasons with the " +
        "offending findings and components. A project-scoped read-only API key may call it (the CI recipe in README).",
      tags: TAGS,
      operationId: "getGateResult",
      auth: caller,
      request: { params: z.object({ id: z.uuid() }) },
      responses: { 200: { description: "The verdict", schema: gateResultSchema }, 404: noProject },
      handler: async ({ params, call }) => {
        const answer = await gate.getGateResult({ projectId: params.id }, call);
        return { status: 200, body: gateResultJson(answer.result!) };
      },
    }),
    defineRoute({
      method: "get",
      path: "/v1/gate-policies/projects/{project_id}",
      summary: "The gate policy in effect for a project",
      description:
        "Each value from the team's policy when it sets it, else the organization default, else the deployment's " +
        "GATE_* key, else the built-in default; `sources` says which. Hidden (404) from those who may not read the " +
        "project.",
      tags: TAGS,
      operationId: "getEffectiveGatePolicy",
      auth: caller,
      request: { params: projectParams },
      responses: { 200: { description: "The policy in effect", schema: effectiveGatePolicySchema }, 404: noProject },
      handler: async ({ params, call }) => {
        const [answer, epss] = await Promise.all([
          gate.getEffectiveGatePolicy({ projectId: params.project_id }, call),
          feeds.getEpssAvailability({}, call),
        ]);
        return { status: 200, body: effectiveGatePolicyJson(answer.policy!, epss) };
      },
    }),
    defineRoute({
      method: "put",
      path: "/v1/gate-policies/teams/{team_id}",
      summary: "Create or replace a team's gate policy",
      description:
        "Idempotent upsert by the team's team_admin (or a super_admin). Fields left out inherit from the " +
        "organization default; epss_threshold null turns the EPSS check off for the team. 201 when it created the " +
        "policy, 200 otherwise.",
      tags: TAGS,
      operationId: "putTeamGatePolicy",
      auth: caller,
      request: { params: teamParams, body: gatePolicyBody },
      responses: {
        200: { description: "The policy, replaced", schema: gatePolicySchema },
        201: { description: "The policy, created", schema: gatePolicySchema },
        403: notTeamAdmin,
        404: noTeam,
      },
      handler: async ({ params, body, call }) => {
        const answer = await gate.putTeamGatePolicy({ teamId: params.team_id, policy: gatePolicyFieldsOf(body) }, call);
        return { status: answer.created ? 201 : 200, body: gatePolicyJson(answer.policy!) };
      },
    }),
    defineRoute({
      method: "get",
      path: "/v1/gate-policies/teams/{team_id}",
      summary: "A team's own gate policy",
      description: "Any member of the team. 404 when the team has none (its organization's policy applies).",
      tags: TAGS,
      operationId: "getTeamGatePolicy",
      auth: caller,
      request: { params: teamParams },
      responses: {
        200: { description: "The team's policy", schema: gatePolicySchema },
        403: problemResponse("An API key: gate policies are for signed-in people"),
        404: problemResponse("No policy of its own, no such team, or not a member of it"),
      },
      handler: async ({ params, call }) => {
        const answer = await gate.getTeamGatePolicy({ teamId: params.team_id }, call);
        return { status: 200, body: gatePolicyJson(answer.policy!) };
      },
    }),
    defineRoute({
      method: "delete",
      path: "/v1/gate-policies/teams/{team_id}",
      summary: "Delete a team's gate policy",
      description: "The team returns to its organization's policy. Idempotent: 204 whether or not there was one.",
      tags: TAGS,
      operationId: "deleteTeamGatePolicy",
      auth: caller,
      request: { params: teamParams },
      responses: { 204: { description: "Deleted, or there was none" }, 403: notTeamAdmin, 404: noTeam },
      handler: async ({ params, call }) => {
        await gate.deleteTeamGatePolicy({ teamId: params.team_id }, call);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: "put",
      path: "/v1/gate-policies/org/{organization_id}",
      summary: "Create or replace an organization's default gate policy",
      description:
        "super_admin only (404 to anyone else). Every field optional; left out inherits the deployment's GATE_* " +
        "keys and the built-in defaults. 201 when it created the policy, 200 otherwise.",
      tags: TAGS,
      operationId: "putOrganizationGatePolicy",
      auth: caller,
      request: { params: organizationParams, body: gatePolicyBody },
      responses: {
        200: { description: "The policy, replaced", schema: gatePolicySchema },
        201: { description: "The policy, created", schema: gatePolicySchema },
        404: problemResponse("Not a super_admin"),
      },
      handler: async ({ params, body, call }) => {
        const answer = await gate.putOrganizationGatePolicy(
          { organizationId: params.organization_id, policy: gatePolicyFieldsOf(body) },
          call,
        );
        return { status: answer.created ? 201 : 200, body: gatePolicyJson(answer.policy!) };
      },
    }),
  ];
}
