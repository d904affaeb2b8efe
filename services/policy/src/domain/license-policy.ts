// A license policy's rules (the spec's License policy resource): overrides of the catalog's category per SPDX id,
// exceptions forcing `allowed` (until they expire, optionally for one package), the category of what cannot be
// judged, and how AND, OR and WITH combine their operands. Which policy is in force for a team: the team's own if
// enabled, else its organization's default if enabled, else none (the built-in catalog alone).
import { isCatalogException, isCatalogLicense, LICENSE_CATEGORIES, type LicenseCategory } from "./license-catalog.ts";

export const COMBINATION_STRATEGIES = ["most_restrictive", "least_restrictive"] as const;
export type CombinationStrategy = (typeof COMBINATION_STRATEGIES)[number];

export interface CompoundOperatorStrategy {
  AND: CombinationStrategy;
  OR: CombinationStrategy;
  WITH: CombinationStrategy;
}

export const DEFAULT_COMPOUND_OPERATOR_STRATEGY: CompoundOperatorStrategy = {
  AND: "most_restrictive",
  OR: "least_restrictive",
  WITH: "most_restrictive",
};

export const DEFAULT_UNKNOWN_LICENSE_CATEGORY: LicenseCategory = "conditional";

export interface LicenseException {
  spdxId: string;
  reason: string;
  expiresAt: Date | null;
  componentPurl: string | null;
}

/** What evaluating an expression needs of a policy. */
export interface LicenseRules {
  categoryOverrides: Record<string, LicenseCategory>;
  licenseExceptions: LicenseException[];
  unknownLicenseCategory: LicenseCategory;
  compoundOperatorStrategy: CompoundOperatorStrategy;
}

/** The rules when no policy is in force: the catalog, `conditional` for the unknown, the default strategy. */
export const CATALOG_ONLY: LicenseRules = {
  categoryOverrides: {},
  licenseExceptions: [],
  unknownLicenseCategory: DEFAULT_UNKNOWN_LICENSE_CATEGORY,
  compoundOperatorStrategy: DEFAULT_COMPOUND_OPERATOR_STRATEGY,
};

/** A partial strategy (any of AND, OR, WITH) over the defaults. */
export function mergedStrategy(
  partial: Partial<CompoundOperatorStrategy> | null | undefined,
): CompoundOperatorStrategy {
  return {
    ...DEFAULT_COMPOUND_OPERATOR_STRATEGY,
    ...Object.fromEntries(Object.entries(partial ?? {}).filter(([, v]) => v)),
  };
}

/** The policy in force: the team's own when enabled, else the organization default when enabled, else null. */
export function effectivePolicy<P extends { enabled: boolean }>(
  team: P | null,
  organizationDefault: P | null,
): P | null {
  if (team?.enabled) return team;
  if (organizationDefault?.enabled) return organizationDefault;
  return null;
}

// Bounds the spec leaves open (docs/license-policies.md).
export const MAX_OVERRIDES = 1000;
export const MAX_EXCEPTIONS = 1000;
export const MAX_NAME_CHARS = 255;
export const MAX_REASON_CHARS = 2000;
export const MAX_PURL_CHARS = 2048;
/** Violations reported at most: a thousand bad entries must not make a problem document (and a header) too large. */
export const MAX_VIOLATIONS = 50;

const LICENSE_REF = /^(DocumentRef-[A-Za-z0-9.-]+:)?LicenseRef-[A-Za-z0-9.-]+$/;

/** Whether a policy may name the id: an SPDX license (maybe `+`) or exception of the catalog, or a LicenseRef. */
export function isNameableId(id: string): boolean {
  if (LICENSE_REF.test(id)) return true;
  if (isCatalogException(id)) return true;
  return isCatalogLicense(id.endsWith("+") ? id.slice(0, -1) : id);
}

export function isLicenseCategory(value: string): value is LicenseCategory {
  return (LICENSE_CATEGORIES as readonly string[]).includes(value);
}

export function isCombinationStrategy(value: string): value is CombinationStrategy {
  return (COMBINATION_STRATEGIES as readonly string[]).includes(value);
}

/** A license policy as a caller writes it, before checks (every field of the PUT body; absent ones are null). */
export interface LicensePolicyInput {
  name: string | null;
  categoryOverrides: Record<string, string>;
  licenseExceptions: { spdxId: string; reason: string; expiresAt: string | null; componentPurl: string | null }[];
  unknownLicenseCategory: string | null;
  compoundOperatorStrategy: Partial<Record<"AND" | "OR" | "WITH", string>> | null;
  enabled: boolean | null;
}

export interface LicensePolicyFields extends LicenseRules {
  name: string | null;
  enabled: boolean;
}

export interface Violation {
  path: string;
  message: string;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** The fields an upsert writes (defaults for what it leaves out), or what is wrong with the input. */
export function planLicensePolicy(
  input: LicensePolicyInput,
): { ok: true; fields: LicensePolicyFields } | { ok: false; violations: Violation[] } {
  const violations: Violation[] = [];
  const name = input.name?.trim() ? input.name : null;
  if (name && name.length > MAX_NAME_CHARS)
    violations.push({ path: "name", message: `at most ${MAX_NAME_CHARS} characters` });

  const overrides = Object.entries(input.categoryOverrides);
  if (overrides.length > MAX_OVERRIDES)
    violations.push({ path: "category_overrides", message: `at most ${MAX_OVERRIDES} entries` });
  const categoryOverrides: Record<string, LicenseCategory> = {};
  for (const [id, category] of overrides.slice(0, MAX_OVERRIDES)) {
    const path = `category_overrides.${id}`;
    if (!isNameableId(id)) violations.push({ path, message: "not an SPDX license or exception id, nor a LicenseRef" });
    else if (!isLicenseCategory(category))
      violations.push({ path, message: "must be allowed, conditional or forbidden" });
    else categoryOverrides[id] = category;
  }

  if (input.licenseExceptions.length > MAX_EXCEPTIONS)
    violations.push({ path: "license_exceptions", message: `at most ${MAX_EXCEPTIONS} entries` });
  const licenseExceptions: LicenseException[] = [];
  input.licenseExceptions.slice(0, MAX_EXCEPTIONS).forEach((e, i) => {
    const at = `license_exceptions.${i}`;
    const before = violations.length;
    if (!isNameableId(e.spdxId))
      violations.push({ path: `${at}.spdx_id`, message: "not an SPDX license or exception id, nor a LicenseRef" });
    if (!e.reason.trim()) violations.push({ path: `${at}.reason`, message: "required" });
    else if (e.reason.length > MAX_REASON_CHARS)
      violations.push({ path: `${at}.reason`, message: `at most ${MAX_REASON_CHARS} characters` });
    let expiresAt: Date | null = null;
    if (e.expiresAt !== null) {
      expiresAt = new Date(e.expiresAt);
      if (!RFC3339.test(e.expiresAt) || Number.isNaN(expiresAt.getTime()))
        violations.push({ path: `${at}.expires_at`, message: "must be an RFC 3339 date-time" });
    }
    const purl = e.componentPurl?.trim() ? e.componentPurl : null;
    if (purl && (!purl.startsWith("pkg:") || purl.length > MAX_PURL_CHARS))
      violations.push({
        path: `${at}.component_purl`,
        message: `a package URL (pkg:...), at most ${MAX_PURL_CHARS} characters`,
      });
    if (violations.length === before)
      licenseExceptions.push({ spdxId: e.spdxId, reason: e.reason, expiresAt, componentPurl: purl });
  });

  const unknown = input.unknownLicenseCategory ?? DEFAULT_UNKNOWN_LICENSE_CATEGORY;
  if (!isLicenseCategory(unknown))
    violations.push({ path: "unknown_license_category", message: "must be allowed, conditional or forbidden" });

  const partial: Partial<CompoundOperatorStrategy> = {};
  for (const [key, value] of Object.entries(input.compoundOperatorStrategy ?? {})) {
    const path = `compound_operator_strategy.${key}`;
    if (key !== "AND" && key !== "OR" && key !== "WITH") violations.push({ path, message: "only AND, OR and WITH" });
    else if (value === undefined) continue;
    else if (!isCombinationStrategy(value))
      violations.push({ path, message: "must be most_restrictive or least_restrictive" });
    else partial[key] = value;
  }

  if (violations.length) return { ok: false, violations: violations.slice(0, MAX_VIOLATIONS) };
  return {
    ok: true,
    fields: {
      name,
      categoryOverrides,
      licenseExceptions,
      unknownLicenseCategory: unknown as LicenseCategory,
      compoundOperatorStrategy: mergedStrategy(partial),
      enabled: input.enabled ?? true,
    },
  };
}
