import { defineEntity, p, type InferEntity } from "@mikro-orm/postgresql";
import type { CompoundOperatorStrategy } from "../../domain/license-policy.ts";

/** A license exception as stored: dates as RFC 3339 text, absent ones null. */
export interface StoredLicenseException {
  spdx_id: string;
  reason: string;
  expires_at: string | null;
  component_purl: string | null;
}

/**
 * A license policy: a team's (team_id set) or its organization's default (team_id null), at most one of each.
 * Teams and organizations live in identity: their ids are kept as given, without foreign keys.
 */
export const LicensePolicy = defineEntity({
  name: "LicensePolicy",
  tableName: "license_policies",
  properties: {
    id: p.uuid().primary(),
    organizationId: p.uuid().strictNullable(),
    teamId: p.uuid().strictNullable(),
    name: p.string().length(255).strictNullable(),
    categoryOverrides: p.json<Record<string, string>>().defaultRaw("'{}'::jsonb"),
    licenseExceptions: p.json<StoredLicenseException[]>().defaultRaw("'[]'::jsonb"),
    unknownLicenseCategory: p.string().length(16).default("conditional"),
    /** Stored merged onto the defaults: every key present. */
    compoundOperatorStrategy: p.json<CompoundOperatorStrategy>(),
    enabled: p.boolean().default(true),
    /** Counts the changes; an upsert that changes nothing leaves it. */
    version: p.integer().default(1),
    createdByUserId: p.uuid().strictNullable(),
    updatedByUserId: p.uuid().strictNullable(),
    createdAt: p.datetime().defaultRaw("now()"),
    updatedAt: p.datetime().defaultRaw("now()"),
    /** The expiry job announced every exception expiring up to this moment (docs/license-policies.md). */
    expiriesAnnouncedUntil: p.datetime().defaultRaw("now()"),
  },
  uniques: [
    {
      name: "license_policies_team",
      expression: "create unique index license_policies_team on license_policies (team_id) where team_id is not null",
    },
    {
      name: "license_policies_organization_default",
      expression:
        "create unique index license_policies_organization_default on license_policies (organization_id) where team_id is null",
    },
  ],
  checks: [
    {
      name: "license_policies_unknown_license_category_check",
      expression: "unknown_license_category in ('allowed', 'conditional', 'forbidden')",
    },
    { name: "license_policies_check", expression: "team_id is not null or organization_id is not null" },
  ],
});

export type LicensePolicyRow = InferEntity<typeof LicensePolicy>;
