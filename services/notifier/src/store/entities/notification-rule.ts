import { defineEntity, p, type InferEntity } from "@mikro-orm/postgresql";

/**
 * A routing rule (the spec's Notification rule): an organization's (team_id null) or a team's, adding channels and
 * e-mail recipients to the notifications it matches (docs/notifications.md). Organizations, teams and projects live
 * in identity and projects: their ids are kept as given, without foreign keys.
 */
export const NotificationRule = defineEntity({
  name: "NotificationRule",
  tableName: "notification_rules",
  properties: {
    id: p.uuid().primary(),
    /** The organization whose notifications it matches; for a team's rule, the team's organization when it had one. */
    organizationId: p.uuid().strictNullable(),
    teamId: p.uuid().strictNullable(),
    /** Set: only this project's notifications. */
    projectId: p.uuid().strictNullable(),
    name: p.string().length(200),
    /** Empty: every kind. */
    kinds: p.json<string[]>().defaultRaw("'[]'::jsonb"),
    minSeverity: p.string().length(16).strictNullable(),
    channels: p.json<string[]>().defaultRaw("'[]'::jsonb"),
    emailRecipients: p.json<string[]>().defaultRaw("'[]'::jsonb"),
    isActive: p.boolean().default(true),
    createdAt: p.datetime().defaultRaw("now()"),
    updatedAt: p.datetime().defaultRaw("now()"),
  },
  indexes: [
    { name: "notification_rules_organization", properties: ["organizationId"], where: "team_id is null" },
    { name: "notification_rules_team", properties: ["teamId"] },
  ],
  checks: [
    { name: "notification_rules_owner_check", expression: "organization_id is not null or team_id is not null" },
    {
      name: "notification_rules_severity_check",
      expression: "min_severity in ('info', 'low', 'medium', 'high', 'critical')",
    },
  ],
});

export type NotificationRuleRow = InferEntity<typeof NotificationRule>;
