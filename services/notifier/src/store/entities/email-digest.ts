import { defineEntity, p, type InferEntity } from "@mikro-orm/postgresql";

/**
 * A person who takes their notification e-mails as one daily digest (docs/notifications.md, "Daily digest"); a
 * person without a row gets one e-mail per notification.
 */
export const EmailDigestSubscriber = defineEntity({
  name: "EmailDigestSubscriber",
  tableName: "email_digest_subscribers",
  properties: {
    userId: p.uuid().primary(),
    updatedAt: p.datetime().defaultRaw("now()"),
  },
});

/**
 * A notification e-mail held for a person's next digest, instead of its own delivery: one per (person, event), so a
 * redelivered event adds nothing. The digest job turns a person's items into one e-mail delivery and deletes them in
 * the same transaction.
 */
export const DigestItem = defineEntity({
  name: "DigestItem",
  tableName: "digest_items",
  properties: {
    id: p.uuid().primary(),
    userId: p.uuid(),
    /** The address at the time of the event (the digest goes to the newest). */
    email: p.string().length(320),
    kind: p.string().length(64),
    severity: p.string().length(16).strictNullable(),
    title: p.text(),
    body: p.text(),
    link: p.text().strictNullable(),
    sourceEventId: p.uuid(),
    createdAt: p.datetime().defaultRaw("now()"),
  },
  uniques: [{ name: "digest_items_user_event", properties: ["userId", "sourceEventId"] }],
  indexes: [{ name: "digest_items_user_created", properties: ["userId", "createdAt"] }],
});

export type DigestItemRow = InferEntity<typeof DigestItem>;
