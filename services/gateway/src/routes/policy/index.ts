// The policy service's routes.
import type { Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";
import { licensePolicyRoutes } from "./license-policies.ts";
import { noticeRoutes } from "./notice.ts";
import { obligationRoutes } from "./obligations.ts";

export function policyRoutes(ctx: GatewayContext): Route[] {
  return [...licensePolicyRoutes(ctx), ...obligationRoutes(ctx), ...noticeRoutes(ctx)];
}
