import { defineEntity, p, type InferEntity } from "@mikro-orm/postgresql";

/**
 * One in-app notification of one person. Users, teams and projects live in other services: their ids are kept as
 * given, without foreign keys. The event that raised it and the person make it unique, so a redelivered event never
 * adds a second one.
 */
export const Notification = defineEntity({
  name: "Notification",
  tableName: "notifications",
  properties: {
    id: p.uuid().primary(),
    userId: p.uuid(),
    kind: p.string().length(64),
    severity: p.string().length(16).strictNullable(),
    title: p.string().length(500),
    body: p.text(),
    /** A path of the portal's frontend. */
    link: p.string().length(2048).strictNullable(),
    organizationId: p.uuid().strictNullable(),
    teamId: p.uuid().strictNullable(),
    projectId: p.uuid().strictNullable(),
    scanId: p.uuid().strictNullable(),
    sourceEventId: p.uuid(),
    createdAt: p.datetime().defaultRaw("now()"),
    readAt: p.datetime().strictNullable(),
  },
  uniques: [{ name: "notifications_event_user", properties: ["sourceEventId", "userId"] }],
  indexes: [
    // A person's list, newest first.
    { name: "notifications_user_created", properties: ["userId", "createdAt", "id"] },
    // Unread counts and the unread-only list.
    { name: "notifications_user_unread", properties: ["userId", "createdAt"], where: "read_at is null" },
  ],
  checks: [
    {
      name: "notifications_severity_check",
      expression: "severity in ('info', 'low', 'medium', 'high', 'critical')",
    },
  ],
});

export type NotificationRow = InferEntity<typeof Notification>;
