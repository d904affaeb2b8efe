// The package version a component is, named as the matcher names it (proto VulnerabilityMatchService's
// PackageVersion), read from the component's purl by the one naming rule the runner's matcher uses too
// (@sca/purl-package). A purl OSV has no ecosystem for, or without a version, names no package version: such a
// component is never matched (an unknown ecosystem is reported by the runner, never guessed here).
import { normalisedName, packageOfPurl, type PackageVersion } from "@sca/purl-package";
import { PackageURL } from "packageurl-js";

export type { PackageVersion };

/** The package version the purl names, or null (no purl, unparsable, no version, an ecosystem OSV does not know). */
export function packageVersionOf(purl: string | null | undefined): PackageVersion | null {
  if (!purl) return null;
  const named = packageOfPurl(purl);
  return named.kind === "package" ? named.package : null;
}

/** One string for a package version, for maps. */
export const packageVersionKey = (p: PackageVersion) => `${p.ecosystem}\u0000${p.name}\u0000${p.version}`;
export const packageKey = (p: { ecosystem: string; name: string }) => `${p.ecosystem}\u0000${p.name}`;

/** The purl of a package (no version) for the external lookup's answer, from the lookup's ecosystem words. */
export const LOOKUP_ECOSYSTEMS = {
  cargo: { ecosystem: "crates.io", purlType: "cargo" },
  go: { ecosystem: "Go", purlType: "golang" },
  maven: { ecosystem: "Maven", purlType: "maven" },
  npm: { ecosystem: "npm", purlType: "npm" },
  nuget: { ecosystem: "NuGet", purlType: "nuget" },
  pypi: { ecosystem: "PyPI", purlType: "pypi" },
} as const;
export type LookupEcosystem = keyof typeof LOOKUP_ECOSYSTEMS;

/** The lookup's package as the matcher names it, and its purl (without version); null for a name no purl can carry. */
export function lookupPackage(
  ecosystem: LookupEcosystem,
  name: string,
): { ecosystem: string; name: string; purl: string } | null {
  const e = LOOKUP_ECOSYSTEMS[ecosystem];
  const trimmed = name.trim();
  const matcherName = normalisedName(e.ecosystem, trimmed);
  let namespace: string | undefined;
  let purlName = trimmed;
  if (ecosystem === "pypi") purlName = normalisedName("PyPI", trimmed);
  if (ecosystem === "maven") {
    const [group, artifact] = trimmed.split(":");
    if (artifact) [namespace, purlName] = [group, artifact];
  }
  if ((ecosystem === "npm" || ecosystem === "go") && trimmed.includes("/")) {
    const cut = trimmed.lastIndexOf("/");
    [namespace, purlName] = [trimmed.slice(0, cut), trimmed.slice(cut + 1)];
  }
  try {
    const purl = new PackageURL(e.purlType, namespace, purlName, undefined, undefined, undefined).toString();
    return { ecosystem: e.ecosystem, name: matcherName, purl };
  } catch {
    return null;
  }
}
