// /v1/admin/users: the super_admin's view of accounts (AdminUserService); everyone else gets 404. The role
// change lives in admin-user-role.ts (DirectoryService).
import type { CallOptions } from "@connectrpc/connect";
import { z } from "zod";
import { NUMBERED_PAGE_SIZE } from "@sca/paging";
import { pageSizePagination } from "../../api/pagination.ts";
import { problemResponse } from "../../api/problem-schema.ts";
import { defineRoute, type Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";
import { adminUserJson, adminUserSchema } from "./views.ts";

const TAGS = ["admin: users"];
const userParams = z.object({ id: z.uuid() });
const notFound = problemResponse("No such user (or the caller is not super_admin)");

// Query strings carry text: only the words true and false are booleans; absent means "either".
const optionalFlag = z
  .enum(["true", "false"])
  .optional()
  .transform((v) => (v === undefined ? undefined : v === "true"));

const listQuery = pageSizePagination.query(NUMBERED_PAGE_SIZE).extend({
  q: z.string().max(200).optional().meta({ description: "Case-insensitive part of the e-mail address or full name" }),
  is_active: optionalFlag,
  is_superuser: optionalFlag,
  mfa_enabled: optionalFlag,
});

export function adminUserRoutes(ctx: GatewayContext): Route[] {
  const adminUsers = ctx.clients.identity.adminUsers;
  const auth = ctx.auth.route("super_admin");

  // The changes that answer nothing share one shape.
  const noContent = (
    path: string,
    method: "post" | "delete",
    operationId: string,
    summary: string,
    change: (userId: string, call: CallOptions) => Promise<unknown>,
  ) =>
    defineRoute({
      method,
      path: `/v1/admin/users/{id}${path}`,
      summary,
      tags: TAGS,
      operationId,
      auth,
      request: { params: userParams },
      responses: { 204: { description: "Done (audited)" }, 404: notFound },
      handler: async ({ params, call }) => {
        await change(params.id, call);
        return { status: 204 };
      },
    });

  return [
    defineRoute({
      method: "get",
      path: "/v1/admin/users",
      summary: "List users, oldest first",
      tags: TAGS,
      operationId: "adminListUsers",
      auth,
      request: { query: listQuery },
      responses: { 200: { description: "A page of users", schema: pageSizePagination.envelope(adminUserSchema) } },
      handler: async ({ query, call }) => {
        const list = await adminUsers.listUsers(
          {
            page: pageSizePagination.request(query),
            q: query.q ?? "",
            isActive: query.is_active,
            isSuperuser: query.is_superuser,
            mfaEnabled: query.mfa_enabled,
          },
          call,
        );
        return {
          status: 200,
          body: pageSizePagination.page(list.items.map(adminUserJson), list.page?.total ?? 0, query),
        };
      },
    }),
    defineRoute({
      method: "get",
      path: "/v1/admin/users/{id}",
      summary: "Get a user",
      tags: TAGS,
      operationId: "adminGetUser",
      auth,
      request: { params: userParams },
      responses: { 200: { description: "The user", schema: adminUserSchema }, 404: notFound },
      handler: async ({ params, call }) => {
        const { user } = await adminUsers.getUser({ userId: params.id }, call);
        return { status: 200, body: adminUserJson(user!) };
      },
    }),
    defineRoute({
      method: "patch",
      path: "/v1/admin/users/{id}/deactivate",
      summary: "Deactivate a user",
      description: "Ends every sign-in of the user (refresh tokens revoked); the bearer stops authenticating.",
      tags: TAGS,
      operationId: "adminDeactivateUser",
      auth,
      request: { params: userParams },
      responses: { 200: { description: "The user", schema: adminUserSchema }, 404: notFound },
      handler: async ({ params, call }) => {
        const { user } = await adminUsers.deactivateUser({ userId: params.id }, call);
        return { status: 200, body: adminUserJson(user!) };
      },
    }),
    defineRoute({
      method: "patch",
      path: "/v1/admin/users/{id}/activate",
      summary: "Activate a user",
      tags: TAGS,
      operationId: "adminActivateUser",
      auth,
      request: { params: userParams },
      responses: { 200: { description: "The user", schema: adminUserSchema }, 404: notFound },
      handler: async ({ params, call }) => {
        const { user } = await adminUsers.activateUser({ userId: params.id }, call);
        return { status: 200, body: adminUserJson(user!) };
      },
    }),
    noContent(
      "/password-reset",
      "post",
      "adminIssuePasswordReset",
      "Send the user a one-shot password-reset link (no cooldown)",
      (userId, call) => adminUsers.issuePasswordReset({ userId }, call),
    ),
    noContent(
      "/unlock-sign-in",
      "post",
      "adminUnlockSignIn",
      "Lift the failed-sign-in throttle of the user's address",
      (userId, call) => adminUsers.unlockSignIn({ userId }, call),
    ),
    noContent(
      "/mfa",
      "delete",
      "adminClearSecondFactor",
      "Clear the user's second factor (the user may enrol again)",
      (userId, call) => adminUsers.clearSecondFactor({ userId }, call),
    ),
  ];
}
