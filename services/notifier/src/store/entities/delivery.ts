import { defineEntity, p, type InferEntity } from "@mikro-orm/postgresql";

/**
 * An outbox of outbound deliveries: one message to one recipient on one channel (e-mail; the Slack and Teams
 * chat webhooks and the ticket webhook). Written in the transaction of the event that raised it, sent by the
 * delivery job, retried with back-off until sent, given up or expired. The message is sealed (@sca/secret-box):
 * a reset e-mail carries a one-shot link, which never rests in the clear.
 */
export const Delivery = defineEntity({
  name: "Delivery",
  tableName: "deliveries",
  properties: {
    id: p.uuid().primary(),
    /** email, slack, teams or ticket. */
    channel: p.string().length(16),
    kind: p.string().length(64),
    /** The person it is for; null for an address a routing rule adds. */
    userId: p.uuid().strictNullable(),
    notificationId: p.uuid().strictNullable(),
    /** The e-mail address; for a webhook, which one (`org`: the deployment's URL), never the URL itself. */
    recipient: p.string().length(320),
    /** JSON of the message (an e-mail's subject, text, html; a webhook's body), sealed. */
    messageSealed: p.text().lazy(),
    sourceEventId: p.uuid(),
    /** pending, sent or failed (given up). */
    status: p.string().length(16).default("pending"),
    attempts: p.integer().default(0),
    nextAttemptAt: p.datetime().defaultRaw("now()"),
    /** Not worth sending after this (a reset link's expiry). */
    expiresAt: p.datetime().strictNullable(),
    /** Why the last try failed, as the SMTP or HTTP server answered (never the message or a URL). */
    lastError: p.string().length(500).strictNullable(),
    createdAt: p.datetime().defaultRaw("now()"),
    sentAt: p.datetime().strictNullable(),
  },
  uniques: [{ name: "deliveries_event_recipient", properties: ["sourceEventId", "channel", "recipient"] }],
  indexes: [{ name: "deliveries_due", properties: ["nextAttemptAt"], where: "status = 'pending'" }],
  checks: [
    { name: "deliveries_status_check", expression: "status in ('pending', 'sent', 'failed')" },
    { name: "deliveries_channel_check", expression: "channel in ('email', 'slack', 'teams', 'ticket')" },
  ],
});

export type DeliveryRow = InferEntity<typeof Delivery>;
