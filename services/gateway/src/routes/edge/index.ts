// The gateway's own routes, answered without a domain service: liveness, readiness and metrics.
import type { Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";
import { healthRoutes } from "./health.ts";
import { metricsRoutes } from "./metrics.ts";

export function edgeRoutes(ctx: GatewayContext): Route[] {
  return [...healthRoutes(ctx), ...metricsRoutes(ctx)];
}
