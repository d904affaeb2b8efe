// The policy service's routes.
import type { Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";
import { gatePolicyRoutes } from "./gate-policies.ts";
import { governanceRoutes } from "./governance.ts";
import { approvalRoutes } from "./approvals.ts";
import { licensePolicyRoutes } from "./license-policies.ts";
import { noticeRoutes } from "./notice.ts";
import { obligationRoutes } from "./obligations.ts";
import { organizationVerdictRoutes } from "./organization-verdicts.ts";

export function policyRoutes(ctx: GatewayContext): Route[] {
  return [
    ...licensePolicyRoutes(ctx),
    ...gatePolicyRoutes(ctx),
    ...governanceRoutes(ctx),
    ...approvalRoutes(ctx),
    ...organizationVerdictRoutes(ctx),
    ...obligationRoutes(ctx),
    ...noticeRoutes(ctx),
  ];
}
