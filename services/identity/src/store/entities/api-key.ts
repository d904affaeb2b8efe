import { defineEntity, p, type InferEntity } from "@mikro-orm/postgresql";
import { Organization } from "./organization.ts";
import { User } from "./user.ts";

/** A machine credential tos_<prefix>_<secret>; only an HMAC-SHA256 (or a legacy bcrypt hash) of it is kept. */
export const ApiKey = defineEntity({
  name: "ApiKey",
  tableName: "api_keys",
  properties: {
    id: p.uuid().primary(),
    name: p.string().length(100),
    scope: p.string().length(16).$type<"org" | "team" | "project">(),
    organizationId: p
      .manyToOne(Organization)
      .mapToPk()
      .fieldName("organization_id")
      .strictNullable()
      .deleteRule("restrict"),
    /** No foreign key: a deleted team revokes its keys, and the rows stay as the record of what was issued. */
    teamId: p.uuid().strictNullable(),
    /** Projects live in the projects service; the id is kept as given. */
    projectId: p.uuid().strictNullable(),
    permissionBreadth: p.string().length(16).$type<"read_only" | "read_write">().default("read_only"),
    keyPrefix: p.string().length(32),
    /** Loaded only where a key is verified. */
    keyHash: p.string().length(255).lazy().hidden(),
    /** hmac_sha256, or bcrypt for rows issued before HMAC storage. */
    hashFormat: p.string().length(16).$type<"hmac_sha256" | "bcrypt">().default("hmac_sha256"),
    createdByUserId: p
      .manyToOne(User)
      .mapToPk()
      .fieldName("created_by_user_id")
      .strictNullable()
      .deleteRule("set null"),
    createdByEmail: p.string().length(320).strictNullable(),
    /** Set when the key belongs to a service account rather than to the person who issued it. */
    serviceAccountId: p
      .manyToOne(User)
      .mapToPk()
      .fieldName("service_account_id")
      .strictNullable()
      .deleteRule("cascade"),
    expiresAt: p.datetime().strictNullable(),
    lastUsedAt: p.datetime().strictNullable(),
    revokedAt: p.datetime().strictNullable(),
    createdAt: p.datetime().defaultRaw("now()"),
  },
  uniques: [{ name: "api_keys_key_prefix_key", properties: ["keyPrefix"] }],
  indexes: [
    { name: "api_keys_team", properties: ["teamId"], where: "revoked_at is null" },
    { name: "api_keys_created_by", properties: ["createdByUserId"] },
  ],
  checks: [
    { name: "api_keys_scope_check", expression: "scope in ('org', 'team', 'project')" },
    { name: "api_keys_permission_breadth_check", expression: "permission_breadth in ('read_only', 'read_write')" },
    { name: "api_keys_hash_format_check", expression: "hash_format in ('hmac_sha256', 'bcrypt')" },
    {
      name: "api_keys_check",
      expression: `(scope = 'org' and team_id is null and project_id is null)
          or (scope = 'team' and team_id is not null and project_id is null)
          or (scope = 'project' and team_id is not null and project_id is not null)`,
    },
  ],
});

export type ApiKeyEntityRow = InferEntity<typeof ApiKey>;
