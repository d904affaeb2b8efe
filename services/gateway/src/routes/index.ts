// Every route file of the gateway. A new area adds its file here: `...projectRoutes(ctx)`.
import type { Route } from "../api/route.ts";
import type { GatewayContext } from "../context.ts";
import { healthRoutes } from "./health.ts";
import { metricsRoutes } from "./metrics.ts";

export function apiRoutes(ctx: GatewayContext): Route[] {
  return [...healthRoutes(ctx), ...metricsRoutes(ctx)];
}
