import { defineEntity, p } from "@mikro-orm/postgresql";

/** A machine credential tos_<prefix>_<secret>; only an HMAC-SHA256 (or a legacy bcrypt hash) of it is kept. */
export const ApiKey = defineEntity({
  name: "ApiKey",
  tableName: "api_keys",
  properties: {
    id: p.uuid().primary(),
    name: p.string().length(100),
    /** org, team or project. */
    scope: p.string().length(16),
    organizationId: p.uuid().nullable(),
    teamId: p.uuid().nullable(),
    /** Projects live in the projects service; the id is kept as given. */
    projectId: p.uuid().nullable(),
    permissionBreadth: p.string().length(16).default("read_only"),
    keyPrefix: p.string().length(32).unique(),
    keyHash: p.string().length(255).hidden(),
    /** hmac_sha256, or bcrypt for rows issued before HMAC storage. */
    hashFormat: p.string().length(16).default("hmac_sha256"),
    createdByUserId: p.uuid().nullable(),
    createdByEmail: p.string().length(320).nullable(),
    /** Set when the key belongs to a service account rather than to the person who issued it. */
    serviceAccountId: p.uuid().nullable(),
    expiresAt: p.datetime().nullable(),
    lastUsedAt: p.datetime().nullable(),
    revokedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
