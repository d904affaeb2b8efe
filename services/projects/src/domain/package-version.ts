// The package version a component is, named as the matcher names it (proto VulnerabilityMatchService's
// PackageVersion: the OSV ecosystem, the name normalised for it, the version as the component carries it), read from
// the component's purl. A purl type without an OSV ecosystem, or a purl without a version, names no package version:
// such a component is never matched (an unknown ecosystem is reported by the runner, never guessed here).
import { PackageURL } from "packageurl-js";

export interface PackageVersion {
  ecosystem: string;
  name: string;
  version: string;
}

/** PEP 503: lower case, runs of -, _ and . as one -. */
const pep503 = (name: string) => name.toLowerCase().replace(/[-_.]+/g, "-");

/** The distribution release of an OS package purl (`distro=debian-12`, `distro=alpine-3.20.1`), else null. */
function distroRelease(qualifiers: Record<string, string> | undefined | null): string | null {
  const distro = qualifiers?.distro ?? "";
  const m = /^[a-z]+-(.+)$/i.exec(distro);
  return m ? m[1]! : null;
}

type Naming = (p: PackageURL) => { ecosystem: string; name: string } | null;
const joined = (p: PackageURL, sep: string) => (p.namespace ? `${p.namespace}${sep}${p.name}` : p.name);

const NAMING: Record<string, Naming> = {
  npm: (p) => ({ ecosystem: "npm", name: joined(p, "/") }),
  pypi: (p) => ({ ecosystem: "PyPI", name: pep503(p.name) }),
  maven: (p) => (p.namespace ? { ecosystem: "Maven", name: `${p.namespace}:${p.name}` } : null),
  golang: (p) => ({ ecosystem: "Go", name: joined(p, "/") }),
  cargo: (p) => ({ ecosystem: "crates.io", name: p.name }),
  nuget: (p) => ({ ecosystem: "NuGet", name: p.name }),
  gem: (p) => ({ ecosystem: "RubyGems", name: p.name }),
  composer: (p) => ({ ecosystem: "Packagist", name: joined(p, "/") }),
  pub: (p) => ({ ecosystem: "Pub", name: p.name }),
  hex: (p) => ({ ecosystem: "Hex", name: p.name }),
  swift: (p) => ({ ecosystem: "SwiftURL", name: joined(p, "/") }),
  deb: (p) => {
    const release = distroRelease(p.qualifiers);
    // Debian releases by major (Debian:12), Ubuntu by year.month (Ubuntu:22.04).
    if (p.namespace?.toLowerCase() === "ubuntu")
      return { ecosystem: release ? `Ubuntu:${release}` : "Ubuntu", name: p.name };
    const major = release ? /^(\d+)/.exec(release)?.[1] : undefined;
    return { ecosystem: major ? `Debian:${major}` : "Debian", name: p.name };
  },
  apk: (p) => {
    const release = distroRelease(p.qualifiers);
    // OSV names Alpine releases by major.minor with a v: Alpine:v3.20.
    const minor = release ? /^v?(\d+\.\d+)/.exec(release)?.[1] : undefined;
    return { ecosystem: minor ? `Alpine:v${minor}` : "Alpine", name: p.name };
  },
};

/** The package version the purl names, or null (no purl, unparsable, no version, an ecosystem OSV does not know). */
export function packageVersionOf(purl: string | null | undefined): PackageVersion | null {
  if (!purl) return null;
  let parsed: PackageURL;
  try {
    parsed = PackageURL.fromString(purl);
  } catch {
    return null;
  }
  if (!parsed.version) return null;
  const naming = NAMING[parsed.type.toLowerCase()]?.(parsed);
  return naming ? { ...naming, version: parsed.version } : null;
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
  let matcherName = trimmed;
  let namespace: string | undefined;
  let purlName = trimmed;
  if (ecosystem === "pypi") matcherName = purlName = pep503(trimmed);
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
