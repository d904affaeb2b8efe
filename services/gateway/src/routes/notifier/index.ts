// The notifier's routes, in the order the OpenAPI document lists them.
import type { Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";
import { notificationRuleRoutes } from "./notification-rules.ts";
import { notificationRoutes } from "./notifications.ts";
import { teamChatWebhookRoutes } from "./team-chat-webhooks.ts";

export function notifierRoutes(ctx: GatewayContext): Route[] {
  return [...notificationRoutes(ctx), ...notificationRuleRoutes(ctx), ...teamChatWebhookRoutes(ctx)];
}
