// Every route of the gateway: its own (edge/) and, per domain service, the routes in routes/<service>/ with that
// service's views. A service adds its folder with an index.ts and one line here: `...projectsRoutes(ctx)`.
import type { Route } from "../api/route.ts";
import type { GatewayContext } from "../context.ts";
import { adminRoutes } from "./admin/index.ts";
import { edgeRoutes } from "./edge/index.ts";
import { identityRoutes } from "./identity/index.ts";
import { notifierRoutes } from "./notifier/index.ts";
import { policyRoutes } from "./policy/index.ts";
import { projectsRoutes } from "./projects/index.ts";
import { scannerRunnerRoutes } from "./scanner-runner/index.ts";
import { scansRoutes } from "./scans/index.ts";
import { scmRoutes } from "./scm/index.ts";

export function apiRoutes(ctx: GatewayContext): Route[] {
  return [
    ...edgeRoutes(ctx),
    ...identityRoutes(ctx),
    ...projectsRoutes(ctx),
    ...scansRoutes(ctx),
    ...notifierRoutes(ctx),
    ...policyRoutes(ctx),
    ...adminRoutes(ctx),
    ...scannerRunnerRoutes(ctx),
    ...scmRoutes(ctx),
  ];
}
