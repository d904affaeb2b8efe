import { defineEntity, p, type InferEntity } from "@mikro-orm/postgresql";

/** A person's choice for one kind on one channel; a kind and channel without a row follow the kind's default. */
export const NotificationPreference = defineEntity({
  name: "NotificationPreference",
  tableName: "notification_preferences",
  properties: {
    userId: p.uuid().primary(),
    kind: p.string().length(64).primary(),
    /** in_app or email (chat and digest channels join later). */
    channel: p.string().length(16).primary(),
    enabled: p.boolean(),
    updatedAt: p.datetime().defaultRaw("now()"),
  },
  checks: [{ name: "notification_preferences_channel_check", expression: "channel in ('in_app', 'email')" }],
});

export type NotificationPreferenceRow = InferEntity<typeof NotificationPreference>;
