// /v1/license-policies (LicensePolicyService): a team's policy (upsert by its team_admin, the policy in force read
// by any member, delete), an organization default (super_admin only; 404 to anyone else) and the list of the
// policies a caller may see. docs/license-policies.md.
import { z } from "zod";
import { NUMBERED_PAGE_SIZE } from "@sca/paging";
import { pageSizePagination } from "../../api/pagination.ts";
import { problemResponse } from "../../api/problem-schema.ts";
import { defineRoute, type Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";
import {
  effectiveLicensePolicySchema,
  licensePolicyBody,
  licensePolicyJson,
  licensePolicySchema,
  policyFieldsOf,
} from "./views.ts";

const TAGS = ["license policies"];
const teamParams = z.object({ team_id: z.uuid() });
const organizationParams = z.object({ organization_id: z.uuid() });
const noTeam = problemResponse("No such team, or the caller is not a member of it");
const notTeamAdmin = problemResponse("A member of the team below team_admin");

export function licensePolicyRoutes(ctx: GatewayContext): Route[] {
  const policies = ctx.clients.policy.licensePolicies;
  const caller = ctx.auth.route("caller");
  return [
    defineRoute({
      method: "get",
      path: "/v1/license-policies",
      summary: "List the license policies the caller may see",
      description:
        "A super_admin sees every policy; anyone else the policies of their teams and the defaults of those teams' " +
        "organizations. Organization defaults first, then team policies.",
      tags: TAGS,
      operationId: "listLicensePolicies",
      auth: caller,
      request: { query: pageSizePagination.query(NUMBERED_PAGE_SIZE) },
      responses: {
        200: { description: "A page of policies", schema: pageSizePagination.envelope(licensePolicySchema) },
        403: problemResponse("An API key: license policies are for signed-in people"),
      },
      handler: async ({ query, call }) => {
        const list = await policies.listLicensePolicies({ page: pageSizePagination.request(query) }, call);
        return {
          status: 200,
          body: pageSizePagination.page(list.items.map(licensePolicyJson), list.page?.total ?? 0, query),
        };
      },
    }),
    defineRoute({
      method: "put",
      path: "/v1/license-policies/teams/{team_id}",
      summary: "Create or replace a team's license policy",
      description:
        "Idempotent upsert by the team's team_admin (or a super_admin). Fields left out take their defaults. 201 when " +
        "it created the policy, 200 otherwise.",
      tags: TAGS,
      operationId: "putTeamLicensePolicy",
      auth: caller,
      request: { params: teamParams, body: licensePolicyBody },
      responses: {
        200: { description: "The policy, replaced", schema: licensePolicySchema },
        201: { description: "The policy, created", schema: licensePolicySchema },
        403: notTeamAdmin,
        404: noTeam,
      },
      handler: async ({ params, body, call }) => {
        const answer = await policies.putTeamLicensePolicy(
          { teamId: params.team_id, policy: policyFieldsOf(body) },
          call,
        );
        return { status: answer.created ? 201 : 200, body: licensePolicyJson(answer.policy!) };
      },
    }),
    defineRoute({
      method: "get",
      path: "/v1/license-policies/teams/{team_id}",
      summary: "The license policy in force for a team",
      description:
        "The team's own policy when enabled, else its organization's default when enabled. 404 means no policy is in " +
        "force: the built-in catalog applies.",
      tags: TAGS,
      operationId: "getTeamLicensePolicy",
      auth: caller,
      request: { params: teamParams },
      responses: {
        200: { description: "The policy in force and where it comes from", schema: effectiveLicensePolicySchema },
        403: problemResponse("An API key: license policies are for signed-in people"),
        404: problemResponse("No policy in force (the catalog applies), no such team, or not a member of it"),
      },
      handler: async ({ params, call }) => {
        const answer = await policies.getTeamLicensePolicy({ teamId: params.team_id }, call);
        return {
          status: 200,
          body: { ...licensePolicyJson(answer.policy!), scope: answer.scope as "team" | "organization" },
        };
      },
    }),
    defineRoute({
      method: "delete",
      path: "/v1/license-policies/teams/{team_id}",
      summary: "Delete a team's license policy",
      description:
        "The organization default (or the catalog) applies again. Idempotent: 204 whether or not there was one.",
      tags: TAGS,
      operationId: "deleteTeamLicensePolicy",
      auth: caller,
      request: { params: teamParams },
      responses: { 204: { description: "Deleted, or there was none" }, 403: notTeamAdmin, 404: noTeam },
      handler: async ({ params, call }) => {
        await policies.deleteTeamLicensePolicy({ teamId: params.team_id }, call);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: "put",
      path: "/v1/license-policies/org/{organization_id}",
      summary: "Create or replace an organization's default license policy",
      description: "super_admin only (404 to anyone else). 201 when it created the policy, 200 otherwise.",
      tags: TAGS,
      operationId: "putOrganizationLicensePolicy",
      auth: caller,
      request: { params: organizationParams, body: licensePolicyBody },
      responses: {
        200: { description: "The policy, replaced", schema: licensePolicySchema },
        201: { description: "The policy, created", schema: licensePolicySchema },
        404: problemResponse("Not a super_admin"),
      },
      handler: async ({ params, body, call }) => {
        const answer = await policies.putOrganizationLicensePolicy(
          { organizationId: params.organization_id, policy: policyFieldsOf(body) },
          call,
        );
        return { status: answer.created ? 201 : 200, body: licensePolicyJson(answer.policy!) };
      },
    }),
    defineRoute({
      method: "get",
      path: "/v1/license-policies/org/{organization_id}",
      summary: "An organization's default license policy",
      description: "super_admin only (404 to anyone else); enabled or not.",
      tags: TAGS,
      operationId: "getOrganizationLicensePolicy",
      auth: caller,
      request: { params: organizationParams },
      responses: {
        200: { description: "The organization default", schema: licensePolicySchema },
        404: problemResponse("No default policy, or not a super_admin"),
      },
      handler: async ({ params, call }) => {
        const answer = await policies.getOrganizationLicensePolicy({ organizationId: params.organization_id }, call);
        return { status: 200, body: licensePolicyJson(answer.policy!) };
      },
    }),
  ];
}
