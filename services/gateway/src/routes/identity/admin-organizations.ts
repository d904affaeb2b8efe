// /v1/admin/organizations: the organizations of the deployment, super_admin only (DirectoryService).
import { NUMBERED_PAGE_SIZE } from "@sca/paging";
import { pageSizePagination } from "../../api/pagination.ts";
import { defineRoute, type Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";
import { organizationJson, organizationSchema } from "./views.ts";

export function adminOrganizationRoutes(ctx: GatewayContext): Route[] {
  return [
    defineRoute({
      method: "get",
      path: "/v1/admin/organizations",
      summary: "List organizations, oldest first",
      tags: ["admin: organizations"],
      operationId: "adminListOrganizations",
      auth: ctx.auth.route("super_admin"),
      request: { query: pageSizePagination.query(NUMBERED_PAGE_SIZE) },
      responses: {
        200: { description: "A page of organizations", schema: pageSizePagination.envelope(organizationSchema) },
      },
      handler: async ({ query, call }) => {
        const list = await ctx.clients.identity.directory.listOrganizations(
          { page: pageSizePagination.request(query) },
          call,
        );
        return {
          status: 200,
          body: pageSizePagination.page(list.items.map(organizationJson), list.page?.total ?? 0, query),
        };
      },
    }),
  ];
}
