// Source hosts (docs/scm.md): inbound repository webhooks, projects' webhook secrets, npm remediation.
import type { Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";
import { pullRequestCommentRoutes } from "./pull-request-comments.ts";
import { remediationRoutes } from "./remediation.ts";
import { sourceHostAppRoutes } from "./source-host-apps.ts";
import { webhookIntakeRoutes } from "./webhook-intake.ts";
import { webhookSecretRoutes } from "./webhook-secrets.ts";

export function scmRoutes(ctx: GatewayContext): Route[] {
  return [
    ...webhookIntakeRoutes(ctx),
    ...webhookSecretRoutes(ctx),
    ...remediationRoutes(ctx),
    ...sourceHostAppRoutes(ctx),
    ...pullRequestCommentRoutes(ctx),
  ];
}
