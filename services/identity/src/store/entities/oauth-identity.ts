import { defineEntity, p, type InferEntity } from "@mikro-orm/postgresql";
import { User } from "./user.ts";

/** A person's identity at an OAuth/OIDC provider (provider + subject), linked to one portal account. */
export const OAuthIdentity = defineEntity({
  name: "OAuthIdentity",
  tableName: "oauth_identities",
  properties: {
    id: p.uuid().primary(),
    userId: p.manyToOne(User).mapToPk().fieldName("user_id").deleteRule("cascade"),
    provider: p.string().length(16),
    /** The provider's stable id for the person (`sub`). */
    subject: p.string().length(255),
    /** The address the provider reported when the identity was last used; informational. */
    email: p.string().length(320).strictNullable(),
    createdAt: p.datetime().defaultRaw("now()"),
    lastUsedAt: p.datetime().strictNullable(),
  },
  uniques: [{ name: "oauth_identities_provider_subject_key", properties: ["provider", "subject"] }],
  indexes: [{ name: "oauth_identities_user", properties: ["userId"] }],
  checks: [{ name: "oauth_identities_provider_check", expression: "provider in ('idp_a', 'idp_b', 'oidc')" }],
});

export type OAuthIdentityRow = InferEntity<typeof OAuthIdentity>;
