import { defineEntity, p, type InferEntity } from "@mikro-orm/postgresql";

/**
 * An organization's container-registry login, one per (organization, registry host). Organizations live in identity:
 * the id is kept as given, without a foreign key. The password is stored sealed (@sca/secret-box) and never answered.
 */
export const RegistryCredential = defineEntity({
  name: "RegistryCredential",
  tableName: "registry_credentials",
  properties: {
    id: p.uuid().primary(),
    organizationId: p.uuid(),
    /** host[:port], lower-case. */
    registryHost: p.string().length(255),
    username: p.string().length(255),
    /** The password, sealed; lazy, so no list ever loads it. */
    passwordSealed: p.text().lazy(),
    allowed: p.boolean().default(true),
    createdAt: p.datetime().defaultRaw("now()"),
    updatedAt: p.datetime().defaultRaw("now()"),
  },
  uniques: [{ name: "registry_credentials_organization_host", properties: ["organizationId", "registryHost"] }],
});

export type RegistryCredentialRow = InferEntity<typeof RegistryCredential>;
