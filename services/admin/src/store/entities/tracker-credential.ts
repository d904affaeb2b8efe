import { defineEntity, p, type InferEntity } from "@mikro-orm/postgresql";

/**
 * An organization's ticket-tracker login, one per (organization, host). Organizations live in identity: the id is
 * kept as given, without a foreign key. The api_token is stored sealed (@sca/secret-box) and never answered.
 */
export const TrackerCredential = defineEntity({
  name: "TrackerCredential",
  tableName: "tracker_credentials",
  properties: {
    id: p.uuid().primary(),
    organizationId: p.uuid(),
    /** The bare host name, lower-case. */
    host: p.string().length(255),
    authScheme: p.string().length(32).default("tracker_basic"),
    username: p.string().length(255),
    /** The api_token, sealed; lazy, so no list ever loads it. */
    apiTokenSealed: p.text().lazy(),
    createdAt: p.datetime().defaultRaw("now()"),
    updatedAt: p.datetime().defaultRaw("now()"),
  },
  uniques: [{ name: "tracker_credentials_organization_host", properties: ["organizationId", "host"] }],
  checks: [{ name: "tracker_credentials_auth_scheme_check", expression: "auth_scheme in ('tracker_basic')" }],
});

export type TrackerCredentialRow = InferEntity<typeof TrackerCredential>;
