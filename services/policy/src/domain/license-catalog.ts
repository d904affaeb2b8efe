// The built-in license catalog: every SPDX license id and exception of the versioned SPDX data packages
// (spdx-license-ids, spdx-exceptions; deprecated ids included, as SBOMs still carry them), each judged for a
// project's distribution_model and ai_usage_context into a category and the obligations that use triggers.
// Unset means every way at once: the most restrictive category of all, with every obligation (the spec's "judged
// as if shipped every way" and "full terms apply"). Reasoning per family: docs/license-catalog.md.
import { createRequire } from "node:module";
import { exceptionFamilyOf, familyOf, type ExceptionFamily, type LicenseFamily } from "./license-families.ts";

export const LICENSE_CATEGORIES = ["allowed", "conditional", "forbidden"] as const;
export type LicenseCategory = (typeof LICENSE_CATEGORIES)[number];

export const DISTRIBUTION_MODELS = ["internal", "saas", "binary", "source", "embedded"] as const;
export type DistributionModel = (typeof DISTRIBUTION_MODELS)[number];

export const AI_USAGE_CONTEXTS = ["internal", "product", "redistribute", "outputs-only"] as const;
export type AiUsageContext = (typeof AI_USAGE_CONTEXTS)[number];

/** What a judgement depends on: the project's two fields, null when unset. */
export interface UseContext {
  distributionModel: DistributionModel | null;
  aiUsageContext: AiUsageContext | null;
}

export const EVERY_WAY: UseContext = { distributionModel: null, aiUsageContext: null };

/** Obligations by code; docs/license-catalog.md says what each asks of a team. */
export type Obligation =
  | "include-license-text"
  | "retain-notices"
  | "state-changes"
  | "disclose-modified-source"
  | "allow-relinking"
  | "disclose-complete-source"
  | "license-whole-work-alike"
  | "installation-information"
  | "offer-source-to-network-users"
  | "non-commercial-use-only"
  | "respect-use-restrictions"
  | "pass-terms-downstream"
  | "share-data-alike"
  | "review-license-terms"
  | "keep-exception-notice";

export interface Judgement {
  category: LicenseCategory;
  obligations: Obligation[];
}

const RANK: Record<LicenseCategory, number> = { allowed: 0, conditional: 1, forbidden: 2 };

export function categoryRank(c: LicenseCategory): number {
  return RANK[c];
}

export function mostRestrictive(a: LicenseCategory, b: LicenseCategory): LicenseCategory {
  return RANK[a] >= RANK[b] ? a : b;
}

export function leastRestrictive(a: LicenseCategory, b: LicenseCategory): LicenseCategory {
  return RANK[a] <= RANK[b] ? a : b;
}

type PerModel = Record<DistributionModel, Judgement>;
type PerAiUse = Record<AiUsageContext, Judgement>;

const j = (category: LicenseCategory, ...obligations: Obligation[]): Judgement => ({ category, obligations });
const NOTICE: Obligation[] = ["include-license-text", "retain-notices"];

// Families whose terms are triggered by how the software is shipped.
const BY_DISTRIBUTION: Partial<Record<LicenseFamily, PerModel>> = {
  "public-domain": {
    internal: j("allowed"),
    saas: j("allowed"),
    binary: j("allowed"),
    source: j("allowed"),
    embedded: j("allowed"),
  },
  permissive: {
    internal: j("allowed"),
    saas: j("allowed"),
    binary: j("allowed", ...NOTICE),
    source: j("allowed", ...NOTICE, "state-changes"),
    embedded: j("allowed", ...NOTICE),
  },
  "weak-copyleft": {
    internal: j("allowed"),
    saas: j("allowed"),
    binary: j("conditional", ...NOTICE, "disclose-modified-source", "allow-relinking"),
    source: j("conditional", ...NOTICE, "disclose-modified-source"),
    embedded: j("conditional", ...NOTICE, "disclose-modified-source", "allow-relinking", "installation-information"),
  },
  "strong-copyleft": {
    internal: j("allowed"),
    saas: j("allowed"),
    binary: j("forbidden", ...NOTICE, "disclose-complete-source", "license-whole-work-alike"),
    source: j("conditional", ...NOTICE, "disclose-complete-source", "license-whole-work-alike"),
    embedded: j(
      "forbidden",
      ...NOTICE,
      "disclose-complete-source",
      "license-whole-work-alike",
      "installation-information",
    ),
  },
  "network-copyleft": {
    internal: j("conditional", "offer-source-to-network-users"),
    saas: j("forbidden", ...NOTICE, "offer-source-to-network-users", "license-whole-work-alike"),
    binary: j("forbidden", ...NOTICE, "disclose-complete-source", "license-whole-work-alike"),
    source: j("conditional", ...NOTICE, "disclose-complete-source", "license-whole-work-alike"),
    embedded: j("forbidden", ...NOTICE, "disclose-complete-source", "license-whole-work-alike"),
  },
  "non-commercial": {
    internal: j("conditional", "non-commercial-use-only"),
    saas: j("forbidden", "non-commercial-use-only"),
    binary: j("forbidden", "non-commercial-use-only", ...NOTICE),
    source: j("forbidden", "non-commercial-use-only", ...NOTICE),
    embedded: j("forbidden", "non-commercial-use-only", ...NOTICE),
  },
  "source-available": {
    internal: j("conditional", "respect-use-restrictions"),
    saas: j("forbidden", "respect-use-restrictions"),
    binary: j("conditional", "respect-use-restrictions", "pass-terms-downstream", ...NOTICE),
    source: j("conditional", "respect-use-restrictions", "pass-terms-downstream", ...NOTICE),
    embedded: j("conditional", "respect-use-restrictions", "pass-terms-downstream", ...NOTICE),
  },
  "restricted-use": {
    internal: j("conditional", "respect-use-restrictions"),
    saas: j("conditional", "respect-use-restrictions"),
    binary: j("conditional", "respect-use-restrictions", "pass-terms-downstream", ...NOTICE),
    source: j("conditional", "respect-use-restrictions", "pass-terms-downstream", ...NOTICE),
    embedded: j("conditional", "respect-use-restrictions", "pass-terms-downstream", ...NOTICE),
  },
  unreviewed: {
    internal: j("conditional", "review-license-terms"),
    saas: j("conditional", "review-license-terms"),
    binary: j("conditional", "review-license-terms", ...NOTICE),
    source: j("conditional", "review-license-terms", ...NOTICE),
    embedded: j("conditional", "review-license-terms", ...NOTICE),
  },
};

// Data and model licenses: their terms follow what the project does with the data or model.
const BY_AI_USE: Partial<Record<LicenseFamily, PerAiUse>> = {
  "ai-data-permissive": {
    internal: j("allowed"),
    "outputs-only": j("allowed"),
    product: j("allowed", ...NOTICE),
    redistribute: j("allowed", ...NOTICE),
  },
  "ai-data-share-alike": {
    internal: j("allowed"),
    "outputs-only": j("allowed"),
    product: j("conditional", ...NOTICE, "share-data-alike"),
    redistribute: j("conditional", ...NOTICE, "share-data-alike", "pass-terms-downstream"),
  },
  "ai-computational-use": {
    internal: j("allowed", "respect-use-restrictions"),
    "outputs-only": j("allowed", "respect-use-restrictions"),
    product: j("conditional", "respect-use-restrictions"),
    redistribute: j("conditional", "respect-use-restrictions", "pass-terms-downstream", ...NOTICE),
  },
};

const BY_EXCEPTION: Record<ExceptionFamily, Judgement> = {
  "additional-permission": j("allowed", "keep-exception-notice"),
  "foss-only-permission": j("conditional", "keep-exception-notice", "review-license-terms"),
};

function unionOf(judgements: Judgement[]): Judgement {
  let category: LicenseCategory = "allowed";
  const obligations = new Set<Obligation>();
  for (const one of judgements) {
    category = mostRestrictive(category, one.category);
    for (const o of one.obligations) obligations.add(o);
  }
  return { category, obligations: [...obligations] };
}

function judgeFamily(family: LicenseFamily, use: UseContext): Judgement {
  const byAi = BY_AI_USE[family];
  if (byAi) return use.aiUsageContext ? byAi[use.aiUsageContext] : unionOf(Object.values(byAi));
  const byModel = BY_DISTRIBUTION[family]!;
  return use.distributionModel ? byModel[use.distributionModel] : unionOf(Object.values(byModel));
}

const requireJson = createRequire(import.meta.url);
const LICENSE_IDS = [
  ...(requireJson("spdx-license-ids") as string[]),
  ...(requireJson("spdx-license-ids/deprecated.json") as string[]),
];
const EXCEPTION_IDS = [
  ...(requireJson("spdx-exceptions") as string[]),
  ...(requireJson("spdx-exceptions/deprecated.json") as string[]),
];
const SPDX_LIST_VERSIONS = {
  licenses: (requireJson("spdx-license-ids/package.json") as { version: string }).version,
  exceptions: (requireJson("spdx-exceptions/package.json") as { version: string }).version,
};

/** A catalog entry: what the id is and which family decides its category. */
export interface CatalogEntry {
  id: string;
  kind: "license" | "exception";
  family: LicenseFamily | ExceptionFamily;
}

const LICENSES = new Map<string, CatalogEntry>(
  LICENSE_IDS.map((id) => [id, { id, kind: "license", family: familyOf(id) }]),
);
const EXCEPTIONS = new Map<string, CatalogEntry>(
  EXCEPTION_IDS.map((id) => [id, { id, kind: "exception", family: exceptionFamilyOf(id) }]),
);

/** Every entry of the catalog, licenses then exceptions. */
export function catalogEntries(): CatalogEntry[] {
  return [...LICENSES.values(), ...EXCEPTIONS.values()];
}

/** The versions of the SPDX data packages the catalog was built from. */
export function catalogVersions(): { licenses: string; exceptions: string } {
  return SPDX_LIST_VERSIONS;
}

export function isCatalogLicense(id: string): boolean {
  return LICENSES.has(id);
}

export function isCatalogException(id: string): boolean {
  return EXCEPTIONS.has(id);
}

/**
 * The catalog's judgement of a license id (a trailing `+`, "or any later version", is judged as the version named)
 * or an exception id for the use; null for an id the catalog does not hold (a LicenseRef, a typo).
 */
export function catalogJudgement(id: string, use: UseContext): Judgement | null {
  const exception = EXCEPTIONS.get(id);
  if (exception) return BY_EXCEPTION[exception.family as ExceptionFamily];
  const license = LICENSES.get(id.endsWith("+") ? id.slice(0, -1) : id);
  if (!license) return null;
  return judgeFamily(license.family as LicenseFamily, use);
}
