import { defineEntity, p, type InferEntity } from "@mikro-orm/postgresql";
import { User } from "./user.ts";

/** One issued refresh token (only its SHA-256 digest); a family is the chain of rotations from one sign-in. */
export const RefreshToken = defineEntity({
  name: "RefreshToken",
  tableName: "refresh_tokens",
  properties: {
    id: p.uuid().primary(),
    userId: p.manyToOne(User).mapToPk().fieldName("user_id").deleteRule("cascade"),
    familyId: p.uuid(),
    tokenHash: p.character().length(64),
    createdAt: p.datetime().defaultRaw("now()"),
    expiresAt: p.datetime(),
    rotatedAt: p.datetime().strictNullable(),
    revokedAt: p.datetime().strictNullable(),
  },
  uniques: [{ name: "refresh_tokens_token_hash_key", properties: ["tokenHash"] }],
  indexes: [
    { name: "refresh_tokens_user", properties: ["userId"] },
    { name: "refresh_tokens_family", properties: ["familyId"] },
    { name: "refresh_tokens_expires", properties: ["expiresAt"] },
  ],
});

export type RefreshTokenRow = InferEntity<typeof RefreshToken>;
