// What a license fetched from a package registry does to an inventory component (docs/license-fetch.md): only a
// component whose document states no license (declared nor concluded) takes one; it becomes the declared license
// (the registry carries the author's declaration), normalised as the SBOM reader normalises, and the component's
// raw_data says where it came from, so a person tells a declared license from a fetched one.
import type { createLicenseNormaliser, NormalisedLicense } from "../sbom/license-expression.ts";
import type { SbomComponent } from "../sbom/inventory.ts";
import type { RegistryLicense } from "./registry-licenses.ts";

/** The raw_data property naming the registry a license came from (value `registry:<npm|pypi|crates|maven>`). */
export const LICENSE_SOURCE_PROPERTY = "sca:license:source";

export const lacksLicense = (c: SbomComponent): boolean => c.declaredLicense === null && c.concludedLicense === null;

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

/** Fills the component's declared license from its registry and marks it so; false when it already had one. */
export function fillFetchedLicense(
  component: SbomComponent,
  license: { expression: string; ids: string[] },
  registry: string,
): boolean {
  if (!lacksLicense(component)) return false;
  component.declaredLicense = license.expression;
  component.licenseIds = [...new Set([...component.licenseIds, ...license.ids])].sort();
  const properties = Array.isArray(component.rawData.properties) ? (component.rawData.properties as unknown[]) : [];
  component.rawData = {
    ...component.rawData,
    properties: [...properties, { name: LICENSE_SOURCE_PROPERTY, value: `registry:${registry}` }],
  };
  return true;
}
