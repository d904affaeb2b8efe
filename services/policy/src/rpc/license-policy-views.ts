// A license_policies row as the contract's LicensePolicy, and a request's fields as the domain's input.
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import {
  CompoundOperatorStrategySchema,
  LicenseExceptionSchema,
  LicensePolicySchema,
  type LicensePolicy,
  type LicensePolicyFields,
} from "@sca/proto/sca/policy/v1/license_policies_pb.ts";
import type { LicenseCategory } from "../domain/license-catalog.ts";
import type { LicensePolicyInput, LicenseRules } from "../domain/license-policy.ts";
import type { LicensePolicyRow } from "../store/entities/license-policy.ts";

export function licensePolicyView(row: LicensePolicyRow): LicensePolicy {
  return create(LicensePolicySchema, {
    id: row.id,
    ...(row.organizationId ? { organizationId: row.organizationId } : {}),
    ...(row.teamId ? { teamId: row.teamId } : {}),
    ...(row.name !== null ? { name: row.name } : {}),
    categoryOverrides: row.categoryOverrides,
    licenseExceptions: row.licenseExceptions.map((e) =>
      create(LicenseExceptionSchema, {
        spdxId: e.spdx_id,
        reason: e.reason,
        ...(e.expires_at ? { expiresAt: timestampFromDate(new Date(e.expires_at)) } : {}),
        ...(e.component_purl ? { componentPurl: e.component_purl } : {}),
      }),
    ),
    unknownLicenseCategory: row.unknownLicenseCategory,
    compoundOperatorStrategy: create(CompoundOperatorStrategySchema, {
      and: row.compoundOperatorStrategy.AND,
      or: row.compoundOperatorStrategy.OR,
      with: row.compoundOperatorStrategy.WITH,
    }),
    enabled: row.enabled,
    version: row.version,
    createdAt: timestampFromDate(row.createdAt),
    updatedAt: timestampFromDate(row.updatedAt),
  });
}

/** The request's policy as the domain reads it (absent fields null). */
export function policyInputOf(fields: LicensePolicyFields | undefined): LicensePolicyInput {
  return {
    name: fields?.name ?? null,
    categoryOverrides: fields?.categoryOverrides ?? {},
    licenseExceptions: (fields?.licenseExceptions ?? []).map((e) => ({
      spdxId: e.spdxId,
      reason: e.reason,
      expiresAt: e.expiresAt ?? null,
      componentPurl: e.componentPurl ?? null,
    })),
    unknownLicenseCategory: fields?.unknownLicenseCategory ?? null,
    compoundOperatorStrategy: fields ? fields.compoundOperatorStrategy : null,
    enabled: fields?.enabled ?? null,
  };
}

/** A stored policy's rules, for judging expressions. */
export function rulesOf(row: LicensePolicyRow): LicenseRules {
  return {
    categoryOverrides: row.categoryOverrides as Record<string, LicenseCategory>,
    licenseExceptions: row.licenseExceptions.map((e) => ({
      spdxId: e.spdx_id,
      reason: e.reason,
      expiresAt: e.expires_at ? new Date(e.expires_at) : null,
      componentPurl: e.component_purl,
    })),
    unknownLicenseCategory: row.unknownLicenseCategory as LicenseCategory,
    compoundOperatorStrategy: row.compoundOperatorStrategy,
  };
}
