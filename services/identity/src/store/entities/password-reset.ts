import { defineEntity, p, type InferEntity } from "@mikro-orm/postgresql";
import { User } from "./user.ts";

/** A one-shot reset token (only its SHA-256 digest). */
export const PasswordResetToken = defineEntity({
  name: "PasswordResetToken",
  tableName: "password_reset_tokens",
  properties: {
    id: p.uuid().primary(),
    userId: p.manyToOne(User).mapToPk().fieldName("user_id").deleteRule("cascade"),
    tokenHash: p.character().length(64),
    createdAt: p.datetime().defaultRaw("now()"),
    expiresAt: p.datetime(),
    usedAt: p.datetime().strictNullable(),
  },
  uniques: [{ name: "password_reset_tokens_token_hash_key", properties: ["tokenHash"] }],
  indexes: [
    { name: "password_reset_tokens_user", properties: ["userId"] },
    { name: "password_reset_tokens_expires", properties: ["expiresAt"] },
  ],
});

/** When an address last asked for a reset e-mail (known address or not). */
export const PasswordResetCooldown = defineEntity({
  name: "PasswordResetCooldown",
  tableName: "password_reset_cooldowns",
  properties: {
    email: p.string().length(320).primary(),
    lastRequestedAt: p.datetime(),
  },
});

export type PasswordResetTokenRow = InferEntity<typeof PasswordResetToken>;
