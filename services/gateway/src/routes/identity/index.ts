// Identity's routes (accounts, sessions, SSO, the directory, API keys), in the order the OpenAPI document lists them.
import type { Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";
import { AUTH_PREFIXES } from "../../http/auth-paths.ts";
import { adminOrganizationRoutes } from "./admin-organizations.ts";
import { adminTeamRoutes } from "./admin-teams.ts";
import { adminUserRoleRoutes } from "./admin-user-role.ts";
import { adminUserRoutes } from "./admin-users.ts";
import { apiKeyRoutes } from "./api-keys.ts";
import { meRoutes } from "./me.ts";
import { oauthIdentityRoutes } from "./oauth-identities.ts";
import { oauthRoutes } from "./oauth.ts";
import { passwordRoutes } from "./passwords.ts";
import { registrationRoutes } from "./registration.ts";
import { sessionRoutes } from "./sessions.ts";

export function identityRoutes(ctx: GatewayContext): Route[] {
  return [
    ...apiKeyRoutes(ctx),
    ...adminTeamRoutes(ctx),
    ...adminOrganizationRoutes(ctx),
    ...adminUserRoleRoutes(ctx),
    // The anonymous account routes, all of /v1/auth before all of /auth.
    ...AUTH_PREFIXES.flatMap((prefix) => [
      ...registrationRoutes(ctx, prefix),
      ...sessionRoutes(ctx, prefix),
      ...passwordRoutes(ctx, prefix),
    ]),
    ...meRoutes(ctx),
    ...adminUserRoutes(ctx),
    ...oauthRoutes(ctx),
    ...oauthIdentityRoutes(ctx),
  ];
}
