// Source hosts (docs/scm.md): inbound repository webhooks and projects' webhook secrets.
import type { Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";
import { webhookIntakeRoutes } from "./webhook-intake.ts";
import { webhookSecretRoutes } from "./webhook-secrets.ts";

export function scmRoutes(ctx: GatewayContext): Route[] {
  return [...webhookIntakeRoutes(ctx), ...webhookSecretRoutes(ctx)];
}
