import { defineEntity, p } from "@mikro-orm/postgresql";

export const User = defineEntity({
  name: "User",
  tableName: "users",
  properties: {
    id: p.uuid().primary(),
    /** Stored lower-cased; unique. */
    email: p.string().length(320).unique(),
    fullName: p.string().length(255).nullable(),
    /** Null for people who only sign in through SSO, and for service accounts. */
    passwordHash: p.string().length(255).nullable().hidden(),
    isActive: p.boolean().default(true),
    /** The super_admin role. */
    isSuperuser: p.boolean().default(false),
    /** A service account holds API keys that outlive any person; it cannot sign in. */
    isServiceAccount: p.boolean().default(false),
    mfaEnabled: p.boolean().default(false),
    lastLoginAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});
