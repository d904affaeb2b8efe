// The gateway's own routes: liveness, readiness, metrics and About (which asks admin and the scanner-runner for
// their versions).
import type { Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";
import { aboutRoutes } from "./about.ts";
import { healthRoutes } from "./health.ts";
import { metricsRoutes } from "./metrics.ts";

export function edgeRoutes(ctx: GatewayContext): Route[] {
  return [...healthRoutes(ctx), ...metricsRoutes(ctx), ...aboutRoutes(ctx)];
}
