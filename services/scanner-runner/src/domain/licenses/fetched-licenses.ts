// What a license fetched from a package registry does to an inventory component (docs/license-fetch.md): only a
// component whose document states no license (declared nor concluded) takes one; it becomes the declared license
// (the registry carries the author's declaration), normalised as the SBOM reader normalises. The lookup runs after
// the findings are recorded, so the licenses go to projects by purl (RecordFetchedLicenses), which fills the
// snapshot's license-less rows and marks their raw_data with the registry, so a person tells a declared license from
// a fetched one. The same rules serve the lookup the scan's outcome waits for and the one after it (by purl).
import type { createLicenseNormaliser, NormalisedLicense } from "../sbom/license-expression.ts";
import type { SbomComponent } from "../sbom/inventory.ts";
import type { RegistryLicense } from "./registry-licenses.ts";

/** The raw_data property naming the registry a license came from (value `registry:<npm|pypi|crates|maven>`). */
export const LICENSE_SOURCE_PROPERTY = "sca:license:source";

export const lacksLicense = (c: Pick<SbomComponent, "declaredLicense" | "concludedLicense">): boolean =>
  c.declaredLicense === null && c.concludedLicense === null;

/** Several licenses offered as a choice: one OR expression, compound operands kept in parentheses. */
function anyOf(expressions: string[]): string | null {
  const distinct = [...new Set(expressions)];
  if (distinct.length <= 1) return distinct[0] ?? null;
  return distinct.map((e) => (/\s(AND|OR)\s/.test(e) ? `(${e})` : e)).join(" OR ");
}

export type LicenseNormaliser = ReturnType<typeof createLicenseNormaliser>;

/** The registry's license as one SPDX expression with the ids it names; null when it says nothing usable. */
export function normalisedRegistryLicense(
  license: RegistryLicense,
  normaliser: LicenseNormaliser,
): { expression: string; ids: string[] } | null {
  const parts: NormalisedLicense[] = license.texts.map((t) =>
    license.kind === "expression" ? normaliser.expression(t) : normaliser.name(t),
  );
  const expression = anyOf(parts.flatMap((p) => (p.expression ? [p.expression] : [])));
  if (!expression) return null;
  return { expression, ids: [...new Set(parts.flatMap((p) => p.ids))].sort() };
}

/** The license a registry states for the release one purl names, as projects records it on the snapshot's rows. */
export interface PurlLicense {
  purl: string;
  expression: string;
  licenseIds: string[];
  registry: string;
}

/** What the lookup's answers give the components that wanted a license (counted per component, as the log says). */
export interface LicenseFills {
  /** One per distinct purl, for the snapshot's rows carrying it and no license. */
  licenses: PurlLicense[];
  /** Components filled, by registry. */
  filled: Map<string, number>;
  /** Components whose registry states none usable (or could not be asked). */
  unstated: number;
  /** Components whose release was not reached within the lookup's time. */
  unreached: number;
}

/**
 * The licenses to record for the components that wanted one: `answers` keyed by `keyOf(w)` (absent: not reached;
 * null: the registry states none). A component with a license is never filled, whatever was asked for it.
 */
export function licenseFillsOf<
  W extends { component: Pick<SbomComponent, "purl" | "declaredLicense" | "concludedLicense"> },
>(
  wanting: readonly W[],
  answers: ReadonlyMap<string, (RegistryLicense & { registry: string }) | null>,
  keyOf: (w: W) => string,
  normaliser: LicenseNormaliser,
): LicenseFills {
  const byPurl = new Map<string, PurlLicense>();
  const filled = new Map<string, number>();
  let unstated = 0;
  let unreached = 0;
  for (const w of wanting) {
    const { component } = w;
    if (!component.purl || !lacksLicense(component)) continue;
    const key = keyOf(w);
    if (!answers.has(key)) {
      unreached++;
      continue;
    }
    const license = answers.get(key);
    const normalised = license ? normalisedRegistryLicense(license, normaliser) : null;
    if (!license || !normalised) {
      unstated++;
      continue;
    }
    if (!byPurl.has(component.purl))
      byPurl.set(component.purl, {
        purl: component.purl,
        expression: normalised.expression,
        licenseIds: normalised.ids,
        registry: license.registry,
      });
    filled.set(license.registry, (filled.get(license.registry) ?? 0) + 1);
  }
  return { licenses: [...byPurl.values()], filled, unstated, unreached };
}
