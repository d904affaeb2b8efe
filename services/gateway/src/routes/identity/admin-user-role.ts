// PATCH /v1/admin/users/{id}/role and service accounts: who holds which role, super_admin only (DirectoryService).
import { z } from "zod";
import { problemResponse } from "../../api/problem-schema.ts";
import { defineRoute, type Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";
import { adminUserJson, adminUserSchema } from "./views.ts";

const TAGS = ["admin: users"];

export function adminUserRoleRoutes(ctx: GatewayContext): Route[] {
  const directory = ctx.clients.identity.directory;
  const auth = ctx.auth.route("super_admin");
  return [
    defineRoute({
      method: "patch",
      path: "/v1/admin/users/{id}/role",
      summary: "Set a user's role",
      description:
        "super_admin sets the flag (team_id ignored). group_admin and developer need team_id (422 without) and set " +
        "that membership; for a current super_admin they are a demotion, refused with 409 last-super-admin when no other " +
        "active super_admin would remain.",
      tags: TAGS,
      operationId: "adminChangeUserRole",
      auth,
      request: {
        params: z.object({ id: z.uuid() }),
        body: z.object({
          role: z.enum(["super_admin", "group_admin", "developer"]),
          team_id: z.string().nullable().optional(),
        }),
      },
      responses: {
        200: { description: "The user", schema: adminUserSchema },
        404: problemResponse("No such user"),
        409: problemResponse("The last active super_admin would be demoted (type ends /last-super-admin)"),
      },
      handler: async ({ params, body, call }) => {
        // team_id is passed as given: identity ignores it for super_admin and judges it for the team roles.
        const { user } = await directory.changeUserRole(
          { userId: params.id, role: body.role, teamId: body.team_id ?? undefined },
          call,
        );
        return { status: 200, body: adminUserJson(user!) };
      },
    }),
    defineRoute({
      method: "post",
      path: "/v1/admin/service-accounts",
      summary: "Create a service account",
      description:
        "A user that never signs in and holds API keys that outlive any person. Give it a role with the team member routes.",
      tags: TAGS,
      operationId: "adminCreateServiceAccount",
      auth,
      request: { body: z.object({ name: z.string().min(1).max(255) }) },
      responses: { 201: { description: "The service account", schema: adminUserSchema } },
      handler: async ({ body, call }) => {
        const { user } = await directory.createServiceAccount({ name: body.name }, call);
        return { status: 201, body: adminUserJson(user!) };
      },
    }),
  ];
}
