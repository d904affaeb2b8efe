// Routing rules (NotificationRuleService of the notifier): an organization's and a team's. Who may read and change
// them is the notifier's rule (docs/notifications.md); a caller who may not see a team or an organization gets 404.
import { NOTIFICATION_SEVERITIES } from "@sca/vocabulary";
import { z } from "zod";
import { problemResponse } from "../../api/problem-schema.ts";
import { defineRoute, type Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";
import { notificationRuleJson, notificationRuleSchema, RULE_CHANNELS } from "./views.ts";

const TAGS = ["notification rules"];
const ruleBody = z
  .object({
    name: z.string().min(1).max(200),
    kinds: z.array(z.string().max(64)).max(50).default([]).meta({ description: "Empty: every kind" }),
    min_severity: z.enum(NOTIFICATION_SEVERITIES).nullable().default(null),
    channels: z
      .array(z.enum(RULE_CHANNELS))
      .max(RULE_CHANNELS.length * 2)
      .default([]),
    email_recipients: z.array(z.email().max(320)).max(50).default([]),
    is_active: z.boolean().default(true),
    project_id: z.uuid().nullable().default(null).meta({ description: "Set: only this project's notifications" }),
  })
  .strict()
  .meta({ id: "NotificationRuleCreate" });
const ruleList = z
  .object({ items: z.array(notificationRuleSchema), total: z.number().int().min(0) })
  .meta({ id: "NotificationRuleList" });
const notAPerson = problemResponse("An API key: routing rules are managed by people");
const invalid = problemResponse("A kind a rule may not name, or a malformed body");

const fieldsOf = (b: z.infer<typeof ruleBody>) => ({
  name: b.name,
  kinds: b.kinds,
  channels: b.channels,
  emailRecipients: b.email_recipients,
  isActive: b.is_active,
  ...(b.min_severity ? { minSeverity: b.min_severity } : {}),
  ...(b.project_id ? { projectId: b.project_id } : {}),
});

export function notificationRuleRoutes(ctx: GatewayContext): Route[] {
  const rules = ctx.clients.notifier.rules;
  const caller = ctx.auth.route("caller");
  return [
    defineRoute({
      method: "get",
      path: "/v1/notification-rules/org/{organization_id}",
      summary: "List an organization's routing rules",
      description: "The organization's own rules, oldest first: super_admin, or a member of one of its teams.",
      tags: TAGS,
      operationId: "listOrganizationNotificationRules",
      auth: caller,
      request: { params: z.object({ organization_id: z.uuid() }) },
      responses: {
        200: { description: "The rules", schema: ruleList },
        403: notAPerson,
        404: problemResponse("No such organization the caller belongs to"),
      },
      handler: async ({ params, call }) => {
        const { items } = await rules.listOrganizationRules({ organizationId: params.organization_id }, call);
        return { status: 200, body: { items: items.map(notificationRuleJson), total: items.length } };
      },
    }),
    defineRoute({
      method: "post",
      path: "/v1/notification-rules/org/{organization_id}",
      summary: "Add a routing rule to an organization",
      description: "super_admin only. It matches the notifications of every team of the organization.",
      tags: TAGS,
      operationId: "createOrganizationNotificationRule",
      auth: caller,
      request: { params: z.object({ organization_id: z.uuid() }), body: ruleBody },
      responses: {
        201: { description: "The rule", schema: notificationRuleSchema },
        403: problemResponse("Not a super_admin, or an API key"),
        404: problemResponse("No such organization the caller belongs to"),
        422: invalid,
      },
      handler: async ({ params, body, call }) => {
        const { rule } = await rules.createOrganizationRule(
          { organizationId: params.organization_id, rule: fieldsOf(body) },
          call,
        );
        return { status: 201, body: notificationRuleJson(rule!) };
      },
    }),
    defineRoute({
      method: "get",
      path: "/v1/notification-rules/teams/{team_id}",
      summary: "List a team's routing rules, with its organization's",
      description: "The organization's rules first, then the team's: any member of the team, or super_admin.",
      tags: TAGS,
      operationId: "listTeamNotificationRules",
      auth: caller,
      request: { params: z.object({ team_id: z.uuid() }) },
      responses: {
        200: { description: "The rules", schema: ruleList },
        403: notAPerson,
        404: problemResponse("No such team the caller belongs to"),
      },
      handler: async ({ params, call }) => {
        const { items } = await rules.listTeamRules({ teamId: params.team_id }, call);
        return { status: 200, body: { items: items.map(notificationRuleJson), total: items.length } };
      },
    }),
    defineRoute({
      method: "post",
      path: "/v1/notification-rules/teams/{team_id}",
      summary: "Add a routing rule to a team",
      description: "team_admin or above on the team, or super_admin.",
      tags: TAGS,
      operationId: "createTeamNotificationRule",
      auth: caller,
      request: { params: z.object({ team_id: z.uuid() }), body: ruleBody },
      responses: {
        201: { description: "The rule", schema: notificationRuleSchema },
        403: problemResponse("A member below team_admin, or an API key"),
        404: problemResponse("No such team the caller belongs to"),
        422: invalid,
      },
      handler: async ({ params, body, call }) => {
        const { rule } = await rules.createTeamRule({ teamId: params.team_id, rule: fieldsOf(body) }, call);
        return { status: 201, body: notificationRuleJson(rule!) };
      },
    }),
    defineRoute({
      method: "delete",
      path: "/v1/notification-rules/{rule_id}",
      summary: "Remove a routing rule",
      description: "An organization's rule: super_admin; a team's: team_admin or above on the team.",
      tags: TAGS,
      operationId: "deleteNotificationRule",
      auth: caller,
      request: { params: z.object({ rule_id: z.uuid() }) },
      responses: {
        204: { description: "Removed" },
        403: problemResponse("The caller sees the rule but may not remove it, or an API key"),
        404: problemResponse("No such rule the caller may see"),
      },
      handler: async ({ params, call }) => {
        await rules.deleteRule({ id: params.rule_id }, call);
        return { status: 204 };
      },
    }),
  ];
}
