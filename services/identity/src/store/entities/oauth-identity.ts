import { defineEntity, p } from "@mikro-orm/postgresql";

/** A person's identity at an OAuth/OIDC provider (provider + subject), linked to one portal account. */
export const OAuthIdentity = defineEntity({
  name: "OAuthIdentity",
  tableName: "oauth_identities",
  properties: {
    id: p.uuid().primary(),
    userId: p.uuid(),
    provider: p.string().length(16),
    /** The provider's stable id for the person (`sub`). */
    subject: p.string().length(255),
    /** The address the provider reported when the identity was last used; informational. */
    email: p.string().length(320).nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    lastUsedAt: p.datetime().nullable(),
  },
  uniques: [{ properties: ["provider", "subject"] }],
});
