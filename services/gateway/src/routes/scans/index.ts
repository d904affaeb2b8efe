// Scans' routes, in the order the OpenAPI document lists them.
import type { Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";
import { scanRoutes } from "./scans.ts";

export function scansRoutes(ctx: GatewayContext): Route[] {
  return [...scanRoutes(ctx)];
}
