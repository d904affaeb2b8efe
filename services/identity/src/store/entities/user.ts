import { defineEntity, p, type InferEntity } from "@mikro-orm/postgresql";

/** A person's account or a service account. Only store/accounts.ts reads and writes this table. */
export const User = defineEntity({
  name: "User",
  tableName: "users",
  properties: {
    id: p.uuid().primary(),
    /** Stored lower-cased; unique. */
    email: p.string().length(320),
    fullName: p.string().length(255).strictNullable(),
    /** Null for people who only sign in through SSO, and for service accounts. */
    passwordHash: p.string().length(255).strictNullable(),
    isActive: p.boolean().default(true),
    /** The super_admin role. */
    isSuperuser: p.boolean().default(false),
    /** A service account holds API keys that outlive any person; it cannot sign in. */
    isServiceAccount: p.boolean().default(false),
    mfaEnabled: p.boolean().default(false),
    lastLoginAt: p.datetime().strictNullable(),
    /** Scans this person asked for, counted from the scan-orchestrator's events (events/scan-count.ts). */
    scanCount: p.integer().default(0),
    createdAt: p.datetime().defaultRaw("now()"),
    updatedAt: p.datetime().defaultRaw("now()"),
  },
  uniques: [{ name: "users_email_key", properties: ["email"] }],
  checks: [{ name: "users_email_check", expression: "email = lower(email)" }],
});

export type UserRow = InferEntity<typeof User>;
