// Every route file of the gateway. A new area adds its file here: `...projectRoutes(ctx)`.
import type { Route } from "../api/route.ts";
import type { GatewayContext } from "../context.ts";
import { adminOrganizationRoutes } from "./admin-organizations.ts";
import { adminTeamRoutes } from "./admin-teams.ts";
import { adminUserRoleRoutes } from "./admin-user-role.ts";
import { adminUserRoutes } from "./admin-users.ts";
import { apiKeyRoutes } from "./api-keys.ts";
import { authRoutes } from "./auth.ts";
import { healthRoutes } from "./health.ts";
import { meRoutes } from "./me.ts";
import { metricsRoutes } from "./metrics.ts";
import { oauthIdentityRoutes } from "./oauth-identities.ts";
import { oauthRoutes } from "./oauth.ts";

export function apiRoutes(ctx: GatewayContext): Route[] {
  return [
    ...healthRoutes(ctx), ...metricsRoutes(ctx),
    ...apiKeyRoutes(ctx), ...adminTeamRoutes(ctx), ...adminOrganizationRoutes(ctx), ...adminUserRoleRoutes(ctx),
    ...authRoutes(ctx), ...meRoutes(ctx), ...adminUserRoutes(ctx),
    ...oauthRoutes(ctx), ...oauthIdentityRoutes(ctx),
  ];
}
