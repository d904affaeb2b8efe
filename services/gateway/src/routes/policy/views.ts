// License policies as the API shows them and takes them (the spec's License policy resource).
import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import type { LicensePolicy } from "@sca/proto/sca/policy/v1/license_policies_pb.ts";
import { z } from "zod";

const CATEGORIES = ["allowed", "conditional", "forbidden"] as const;
const STRATEGIES = ["most_restrictive", "least_restrictive"] as const;
const MAX_ENTRIES = 1000;

const iso = (t: Timestamp | undefined) => (t ? timestampDate(t).toISOString() : null);

const strategySchema = z.object({
  AND: z.enum(STRATEGIES),
  OR: z.enum(STRATEGIES),
  WITH: z.enum(STRATEGIES),
});

const exceptionSchema = z.object({
  spdx_id: z.string(),
  reason: z.string(),
  expires_at: z.string().nullable(),
  component_purl: z.string().nullable(),
});

export const licensePolicySchema = z
  .object({
    id: z.uuid(),
    organization_id: z.uuid().nullable(),
    team_id: z.uuid().nullable().meta({ description: "Null for an organization default" }),
    name: z.string().nullable(),
    category_overrides: z.record(z.string(), z.enum(CATEGORIES)),
    license_exceptions: z.array(exceptionSchema),
    unknown_license_category: z.enum(CATEGORIES),
    compound_operator_strategy: strategySchema,
    enabled: z.boolean(),
    version: z.number().int(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "LicensePolicy" });

export const effectiveLicensePolicySchema = licensePolicySchema
  .extend({
    scope: z.enum(["team", "organization"]).meta({ description: "Where the policy in force comes from" }),
  })
  .meta({ id: "EffectiveLicensePolicy" });

export const licensePolicyBody = z
  .object({
    name: z.string().max(255).nullable().optional(),
    category_overrides: z
      .record(z.string().min(1).max(300), z.enum(CATEGORIES))
      .refine((o) => Object.keys(o).length <= MAX_ENTRIES, { message: `at most ${MAX_ENTRIES} entries` })
      .optional()
      .meta({ description: "SPDX license or exception id (or LicenseRef-) to its category" }),
    license_exceptions: z
      .array(
        z.object({
          spdx_id: z.string().min(1).max(300),
          reason: z.string().min(1).max(2000),
          expires_at: z.iso.datetime({ offset: true }).nullable().optional().meta({ description: "RFC 3339" }),
          component_purl: z
            .string()
            .max(2048)
            .nullable()
            .optional()
            .meta({ description: "Only this package (every version when the purl names none)" }),
        }),
      )
      .max(MAX_ENTRIES)
      .optional()
      .meta({ description: "Each forces `allowed` for its id until it expires" }),
    unknown_license_category: z.enum(CATEGORIES).optional().meta({ description: "Default conditional" }),
    compound_operator_strategy: z
      .strictObject({
        AND: z.enum(STRATEGIES).optional(),
        OR: z.enum(STRATEGIES).optional(),
        WITH: z.enum(STRATEGIES).optional(),
      })
      .optional()
      .meta({ description: "Merged onto AND most_restrictive, OR least_restrictive, WITH most_restrictive" }),
    enabled: z.boolean().optional().meta({ description: "Default true" }),
  })
  .meta({ id: "LicensePolicyInput" });

export type LicensePolicyBody = z.output<typeof licensePolicyBody>;

/** The body as the contract's LicensePolicyFields (absent fields stay absent: the service applies the defaults). */
export function policyFieldsOf(body: LicensePolicyBody) {
  const strategy = Object.fromEntries(
    Object.entries(body.compound_operator_strategy ?? {}).filter(([, v]) => v !== undefined),
  ) as Record<string, string>;
  return {
    ...(body.name != null ? { name: body.name } : {}),
    categoryOverrides: body.category_overrides ?? {},
    licenseExceptions: (body.license_exceptions ?? []).map((e) => ({
      spdxId: e.spdx_id,
      reason: e.reason,
      ...(e.expires_at != null ? { expiresAt: e.expires_at } : {}),
      ...(e.component_purl != null ? { componentPurl: e.component_purl } : {}),
    })),
    ...(body.unknown_license_category ? { unknownLicenseCategory: body.unknown_license_category } : {}),
    compoundOperatorStrategy: strategy,
    ...(body.enabled !== undefined ? { enabled: body.enabled } : {}),
  };
}

export function licensePolicyJson(p: LicensePolicy): z.input<typeof licensePolicySchema> {
  const strategy = p.compoundOperatorStrategy;
  return {
    id: p.id,
    organization_id: p.organizationId ?? null,
    team_id: p.teamId ?? null,
    name: p.name ?? null,
    category_overrides: p.categoryOverrides as Record<string, (typeof CATEGORIES)[number]>,
    license_exceptions: p.licenseExceptions.map((e) => ({
      spdx_id: e.spdxId,
      reason: e.reason,
      expires_at: iso(e.expiresAt),
      component_purl: e.componentPurl ?? null,
    })),
    unknown_license_category: p.unknownLicenseCategory as (typeof CATEGORIES)[number],
    compound_operator_strategy: {
      AND: strategy?.and as (typeof STRATEGIES)[number],
      OR: strategy?.or as (typeof STRATEGIES)[number],
      WITH: strategy?.with as (typeof STRATEGIES)[number],
    },
    enabled: p.enabled,
    version: p.version,
    created_at: iso(p.createdAt)!,
    updated_at: iso(p.updatedAt)!,
  };
}
