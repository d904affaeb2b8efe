import { defineEntity, p } from "@mikro-orm/postgresql";

/** One issued refresh token (only its SHA-256 digest); a family is the chain of rotations from one sign-in. */
export const RefreshToken = defineEntity({
  name: "RefreshToken",
  tableName: "refresh_tokens",
  properties: {
    id: p.uuid().primary(),
    userId: p.uuid(),
    familyId: p.uuid(),
    tokenHash: p.string().length(64).unique(),
    createdAt: p.datetime().onCreate(() => new Date()),
    expiresAt: p.datetime(),
    rotatedAt: p.datetime().nullable(),
    revokedAt: p.datetime().nullable(),
  },
});
