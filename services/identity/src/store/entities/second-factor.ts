import { defineEntity, p } from "@mikro-orm/postgresql";

/** A user's TOTP seed, sealed with AES-256-GCM; pending until confirmedAt is set. */
export const TotpFactor = defineEntity({
  name: "TotpFactor",
  tableName: "totp_factors",
  properties: {
    userId: p.uuid().primary(),
    secretSealed: p.text().hidden(),
    confirmedAt: p.datetime().nullable(),
    /** The time step of the last accepted code: no code of that step or earlier is accepted again. */
    lastUsedStep: p.bigint().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

/** A one-shot recovery code (only its SHA-256 digest). */
export const RecoveryCode = defineEntity({
  name: "RecoveryCode",
  tableName: "recovery_codes",
  properties: {
    id: p.uuid().primary(),
    userId: p.uuid(),
    codeDigest: p.string().length(64).hidden(),
    usedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
  uniques: [{ properties: ["userId", "codeDigest"] }],
});
