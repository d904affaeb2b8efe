// The scanner-runner's routes.
import type { Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";
import { feedRoutes } from "./feeds.ts";

export function scannerRunnerRoutes(ctx: GatewayContext): Route[] {
  return [...feedRoutes(ctx)];
}
