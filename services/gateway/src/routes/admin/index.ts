// The admin service's routes.
import type { Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";
import { auditRoutes } from "./audit.ts";
import { backupRoutes } from "./backups.ts";
import { crashReportRoutes } from "./crash-reports.ts";
import { statusPanelRoutes } from "./status-panels.ts";
import { trackerCredentialRoutes } from "./tracker-credentials.ts";
import { registryCredentialRoutes } from "./registry-credentials.ts";

export function adminRoutes(ctx: GatewayContext): Route[] {
  return [
    ...auditRoutes(ctx),
    ...trackerCredentialRoutes(ctx),
    ...registryCredentialRoutes(ctx),
    ...backupRoutes(ctx),
    ...statusPanelRoutes(ctx),
    ...crashReportRoutes(ctx),
  ];
}
