// /v1/admin/teams: the team (group) hierarchy and its members, super_admin only (DirectoryService).
import { z } from "zod";
import { NUMBERED_PAGE_SIZE } from "@sca/paging";
import { pageSizePagination } from "../../api/pagination.ts";
import { problemResponse } from "../../api/problem-schema.ts";
import { defineRoute, type Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";
import { authenticatedOf } from "../../http/authenticate.ts";
import { teamJson, teamSchema } from "./views.ts";

const TAGS = ["admin: teams"];
const teamParams = z.object({ id: z.uuid() });
const notFound = problemResponse("No such team (or the caller is not super_admin)");
const listQuery = pageSizePagination.query(NUMBERED_PAGE_SIZE).extend({
  search: z.string().max(255).optional().meta({ description: "Case-insensitive part of the name or slug" }),
});

export function adminTeamRoutes(ctx: GatewayContext): Route[] {
  const directory = ctx.clients.identity.directory;
  const auth = ctx.auth.route("super_admin");
  // The spec's group search limit, per user: a list with `search` counts, paging through the list does not.
  const rule = ctx.config.GROUP_SEARCH_RATE_LIMIT;
  const searchLimit = ctx.rateLimit({
    name: "group-search",
    ...rule,
    key: (req) => authenticatedOf(req).caller.user_id ?? authenticatedOf(req).caller.api_key_id ?? "",
  });
  return [
    defineRoute({
      method: "get",
      path: "/v1/admin/teams",
      summary: "List teams",
      description: `A list with \`search\` is limited to ${rule.limit} per ${rule.windowSeconds} s per user (GROUP_SEARCH_RATE_LIMIT).`,
      tags: TAGS,
      operationId: "adminListTeams",
      auth,
      middleware: [(req, res, next) => (req.query.search === undefined ? next() : searchLimit(req, res, next))],
      request: { query: listQuery },
      responses: {
        200: { description: "A page of teams", schema: pageSizePagination.envelope(teamSchema) },
        429: problemResponse("Too many searches by this user (GROUP_SEARCH_RATE_LIMIT)"),
      },
      handler: async ({ query, call }) => {
        const list = await directory.listTeams(
          { page: pageSizePagination.request(query), search: query.search ?? "" },
          call,
        );
        return { status: 200, body: pageSizePagination.page(list.items.map(teamJson), list.page?.total ?? 0, query) };
      },
    }),
    defineRoute({
      method: "post",
      path: "/v1/admin/teams",
      summary: "Create a team",
      description:
        "organization_id is required when several organizations exist (422 otherwise). parent_group_id creates the team inside another team of the same organization.",
      tags: TAGS,
      operationId: "adminCreateTeam",
      auth,
      request: {
        body: z.object({
          name: z.string().min(1).max(255),
          slug: z.string().min(1).max(64),
          description: z.string().nullable().optional(),
          organization_id: z.uuid().nullable().optional(),
          parent_group_id: z.uuid().nullable().optional(),
        }),
      },
      responses: {
        201: { description: "The new team", schema: teamSchema },
        409: problemResponse("Another team of the organization uses the slug (slug_taken)"),
      },
      handler: async ({ body, call }) => {
        const { team } = await directory.createTeam(
          {
            name: body.name,
            slug: body.slug,
            description: body.description ?? undefined,
            organizationId: body.organization_id ?? undefined,
            parentGroupId: body.parent_group_id ?? undefined,
          },
          call,
        );
        return { status: 201, body: teamJson(team!) };
      },
    }),
    defineRoute({
      method: "get",
      path: "/v1/admin/teams/{id}",
      summary: "Get a team",
      tags: TAGS,
      operationId: "adminGetTeam",
      auth,
      request: { params: teamParams },
      responses: { 200: { description: "The team", schema: teamSchema }, 404: notFound },
      handler: async ({ params, call }) => {
        const { team } = await directory.getTeam({ teamId: params.id }, call);
        return { status: 200, body: teamJson(team!) };
      },
    }),
    defineRoute({
      method: "patch",
      path: "/v1/admin/teams/{id}",
      summary: "Change a team's name, slug or description",
      description: 'Absent fields stay; description null or "" clears it. The parent changes only through a move.',
      tags: TAGS,
      operationId: "adminUpdateTeam",
      auth,
      request: {
        params: teamParams,
        body: z.object({
          name: z.string().min(1).max(255).optional(),
          slug: z.string().min(1).max(64).optional(),
          description: z.string().nullable().optional(),
        }),
      },
      responses: {
        200: { description: "The team", schema: teamSchema },
        404: notFound,
        409: problemResponse("Another team of the organization uses the slug (slug_taken)"),
      },
      handler: async ({ params, body, call }) => {
        const { team } = await directory.updateTeam(
          {
            teamId: params.id,
            name: body.name,
            slug: body.slug,
            description: body.description === null ? "" : body.description,
          },
          call,
        );
        return { status: 200, body: teamJson(team!) };
      },
    }),
    defineRoute({
      method: "delete",
      path: "/v1/admin/teams/{id}",
      summary: "Delete a team",
      description: "Refused while the team has subteams. Its memberships go with it; its API keys are revoked.",
      tags: TAGS,
      operationId: "adminDeleteTeam",
      auth,
      request: { params: teamParams },
      responses: {
        204: { description: "Deleted" },
        404: notFound,
        409: problemResponse("The team has subteams (team_has_subteams)"),
      },
      handler: async ({ params, call }) => {
        await directory.deleteTeam({ teamId: params.id }, call);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: "post",
      path: "/v1/admin/teams/{group_id}/move",
      summary: "Move a team and its subtree",
      description:
        "new_parent_id null moves the team to its organization's root. A parent in another organization, the team itself or one of its subteams is 422.",
      tags: TAGS,
      operationId: "adminMoveTeam",
      auth,
      request: { params: z.object({ group_id: z.uuid() }), body: z.object({ new_parent_id: z.uuid().nullable() }) },
      responses: { 200: { description: "The moved team", schema: teamSchema }, 404: notFound },
      handler: async ({ params, body, call }) => {
        const { team } = await directory.moveTeam(
          { teamId: params.group_id, newParentId: body.new_parent_id ?? undefined },
          call,
        );
        return { status: 200, body: teamJson(team!) };
      },
    }),
    defineRoute({
      method: "post",
      path: "/v1/admin/teams/{id}/members",
      summary: "Add a member, or change the role of a member",
      tags: TAGS,
      operationId: "adminAddTeamMember",
      auth,
      request: {
        params: teamParams,
        body: z.object({ user_id: z.uuid(), role: z.enum(["group_admin", "team_admin", "developer", "viewer"]) }),
      },
      responses: { 200: { description: "The team with its members", schema: teamSchema }, 404: notFound },
      handler: async ({ params, body, call }) => {
        const { team } = await directory.addTeamMember(
          { teamId: params.id, userId: body.user_id, role: body.role },
          call,
        );
        return { status: 200, body: teamJson(team!) };
      },
    }),
    defineRoute({
      method: "delete",
      path: "/v1/admin/teams/{id}/members/{user_id}",
      summary: "Remove a member",
      tags: TAGS,
      operationId: "adminRemoveTeamMember",
      auth,
      request: { params: z.object({ id: z.uuid(), user_id: z.uuid() }) },
      responses: { 204: { description: "Removed" }, 404: problemResponse("No such membership") },
      handler: async ({ params, call }) => {
        await directory.removeTeamMember({ teamId: params.id, userId: params.user_id }, call);
        return { status: 204 };
      },
    }),
  ];
}
