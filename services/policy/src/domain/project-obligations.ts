// A project's license obligations, derived from the distinct license expressions of its newest snapshot: each
// expression judged as licenseExpressionVerdict judges it (the policy in force, the project's distribution_model and
// ai_usage_context), its obligations attributed to the operand whose terms carry them (both sides of AND and WITH,
// the chosen side of OR). One obligation per (license, obligation code), counting the components that carry it; an
// expression that cannot be evaluated carries review-license-terms under the expression as written.
// The id is a UUIDv5 of (project, license, code): the same obligation keeps its id across scans, so a fulfilment
// recorded against it stays attached while the inventory still carries it (docs/obligations.md).
import { v5 as uuidV5 } from "uuid";
import type { LicenseCategory, Obligation, UseContext } from "./license-catalog.ts";
import type { LicenseRules } from "./license-policy.ts";
import { licenseExpressionVerdict } from "./license-verdict.ts";

/** Our own namespace for obligation ids. */
const OBLIGATION_NAMESPACE = "0b11ea7e-5c4a-4e0d-9a8f-3d2c1b0a9f8e";

/** What a team must do, per code (docs/license-catalog.md, "Obligations"). */
export const OBLIGATION_TITLES: Record<Obligation, string> = {
  "include-license-text": "Ship the license text with the component",
  "retain-notices": "Keep copyright and NOTICE texts",
  "state-changes": "Mark modified files when shipping source",
  "disclose-modified-source": "Publish the source of the component and of its modifications",
  "allow-relinking": "Let users replace or relink the library",
  "installation-information": "Give what is needed to install a modified version on the device",
  "disclose-complete-source": "Publish the complete source of the combined work",
  "license-whole-work-alike": "License the combined work under the same license",
  "offer-source-to-network-users": "Offer the source to users who interact with it over a network",
  "non-commercial-use-only": "Only non-commercial use is granted",
  "respect-use-restrictions": "Check the project's use against the uses the license excludes",
  "pass-terms-downstream": "Pass the license's terms on to recipients",
  "share-data-alike": "Publish changes to the data under the same terms",
  "review-license-terms": "A person must read the license terms",
  "keep-exception-notice": "Keep the exception's text with the license",
};

/** The stand-in license of components without one. */
export const NO_LICENSE = "NOASSERTION";

export interface ExpressionCount {
  /** The components' license expression; null or "" when they have none. */
  expression: string | null;
  componentCount: number;
}

export interface ProjectObligation {
  id: string;
  obligation: Obligation;
  title: string;
  license: string;
  licenseCategory: LicenseCategory;
  componentCount: number;
  /** The expressions carrying it, most components first. */
  expressions: ExpressionCount[];
}

export function obligationIdOf(projectId: string, license: string, obligation: Obligation): string {
  return uuidV5(`${projectId.toLowerCase()}\n${license}\n${obligation}`, OBLIGATION_NAMESPACE);
}

/** The obligations of the expressions, ordered by license then code (byte order, stable). */
export function deriveObligations(
  projectId: string,
  expressions: readonly ExpressionCount[],
  rules: LicenseRules,
  use: UseContext,
  now: Date,
): ProjectObligation[] {
  const byKey = new Map<string, ProjectObligation>();
  for (const { expression, componentCount } of expressions) {
    const verdict = licenseExpressionVerdict(expression || null, rules, { ...use, componentPurl: null, now });
    const carried: { license: string; category: LicenseCategory; obligation: Obligation }[] = verdict.unevaluable
      ? [
          {
            license: expression?.trim() || NO_LICENSE,
            category: verdict.category,
            obligation: "review-license-terms",
          },
        ]
      : verdict.attributed.flatMap((a) =>
          a.obligations.map((obligation) => ({ license: a.id, category: a.category, obligation })),
        );
    const seen = new Set<string>();
    for (const { license, category, obligation } of carried) {
      const key = `${license}\n${obligation}`;
      // "MIT AND MIT": the same components, once.
      if (seen.has(key)) continue;
      seen.add(key);
      let entry = byKey.get(key);
      if (!entry) {
        entry = {
          id: obligationIdOf(projectId, license, obligation),
          obligation,
          title: OBLIGATION_TITLES[obligation],
          license,
          licenseCategory: category,
          componentCount: 0,
          expressions: [],
        };
        byKey.set(key, entry);
      }
      entry.componentCount += componentCount;
      entry.expressions.push({ expression: expression || null, componentCount });
    }
  }
  const byBytes = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return [...byKey.values()].sort((a, b) => byBytes(a.license, b.license) || byBytes(a.obligation, b.obligation));
}

export const OBLIGATION_SORT_FIELDS = [
  "obligation",
  "license",
  "license_category",
  "component_count",
  "fulfilled",
] as const;
export type ObligationSortField = (typeof OBLIGATION_SORT_FIELDS)[number];
export interface SortKey {
  field: ObligationSortField;
  descending: boolean;
}

/** `sort` as the spec writes it (comma-separated `field` or `-field`); null names the unknown field. */
export function parseObligationSort(sort: string): { ok: true; keys: SortKey[] } | { ok: false; field: string } {
  const keys: SortKey[] = [];
  for (const raw of sort.split(",").map((s) => s.trim())) {
    if (!raw) continue;
    const descending = raw.startsWith("-");
    const field = descending ? raw.slice(1) : raw;
    if (!(OBLIGATION_SORT_FIELDS as readonly string[]).includes(field)) return { ok: false, field };
    keys.push({ field: field as ObligationSortField, descending });
  }
  return { ok: true, keys };
}

const CATEGORY_RANK: Record<LicenseCategory, number> = { allowed: 0, conditional: 1, forbidden: 2 };

/** Sorts by the keys, then by license and code (the derivation's order) so a page boundary is stable. */
export function sortObligations<T extends ProjectObligation & { fulfilled: boolean }>(
  items: T[],
  keys: readonly SortKey[],
): T[] {
  const value = (o: T, field: ObligationSortField): number | string => {
    switch (field) {
      case "obligation":
        return o.obligation;
      case "license":
        return o.license;
      case "license_category":
        return CATEGORY_RANK[o.licenseCategory];
      case "component_count":
        return o.componentCount;
      case "fulfilled":
        return o.fulfilled ? 1 : 0;
    }
  };
  return [...items].sort((a, b) => {
    for (const { field, descending } of keys) {
      const x = value(a, field);
      const y = value(b, field);
      if (x !== y) return (x < y ? -1 : 1) * (descending ? -1 : 1);
    }
    return 0;
  });
}
