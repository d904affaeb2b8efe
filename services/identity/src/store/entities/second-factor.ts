import { defineEntity, p, type InferEntity } from "@mikro-orm/postgresql";
import { User } from "./user.ts";

/** A user's TOTP seed, sealed with AES-256-GCM; pending until confirmedAt is set. */
export const TotpFactor = defineEntity({
  name: "TotpFactor",
  tableName: "totp_factors",
  properties: {
    userId: p.manyToOne(User).mapToPk().fieldName("user_id").primary().deleteRule("cascade").updateRule("no action"),
    secretSealed: p.text().hidden(),
    confirmedAt: p.datetime().strictNullable(),
    /** The time step of the last accepted code: no code of that step or earlier is accepted again. */
    lastUsedStep: p.bigint("number").strictNullable(),
    createdAt: p.datetime().defaultRaw("now()"),
  },
});

/** A one-shot recovery code (only its SHA-256 digest). */
export const RecoveryCode = defineEntity({
  name: "RecoveryCode",
  tableName: "recovery_codes",
  properties: {
    id: p.uuid().primary(),
    userId: p.manyToOne(User).mapToPk().fieldName("user_id").deleteRule("cascade"),
    codeDigest: p.character().length(64).hidden(),
    usedAt: p.datetime().strictNullable(),
    createdAt: p.datetime().defaultRaw("now()"),
  },
  uniques: [{ name: "recovery_codes_user_id_code_digest_key", properties: ["userId", "codeDigest"] }],
});

export type TotpFactorRow = InferEntity<typeof TotpFactor>;
