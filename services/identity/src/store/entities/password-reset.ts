import { defineEntity, p } from "@mikro-orm/postgresql";

/** A one-shot reset token (only its SHA-256 digest). */
export const PasswordResetToken = defineEntity({
  name: "PasswordResetToken",
  tableName: "password_reset_tokens",
  properties: {
    id: p.uuid().primary(),
    userId: p.uuid(),
    tokenHash: p.string().length(64).unique(),
    createdAt: p.datetime().onCreate(() => new Date()),
    expiresAt: p.datetime(),
    usedAt: p.datetime().nullable(),
  },
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
