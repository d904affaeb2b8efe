// How a package URL names a package version in OSV's terms (ecosystem with its release, name normalised for the
// ecosystem, version). One format rule shared by the matcher (scanner-runner) and the findings (projects): both must
// name a component alike, or a component counts as never assessed. A purl type OSV has no ecosystem for here is
// reported as unknown, never guessed.
import { PackageURL } from "packageurl-js";

/** A package version as the matcher names it (proto sca.projects.v1.PackageVersion). */
export interface PackageVersion {
  /** The OSV ecosystem, with its release for OS distributions ("Debian:12", "Alpine:v3.20"). */
  ecosystem: string;
  /** Normalised for the ecosystem (see normalisedName). */
  name: string;
  version: string;
}

/** "Debian:12" -> "Debian"; "Ubuntu:22.04:LTS" -> "Ubuntu". */
export const ecosystemBase = (ecosystem: string): string => ecosystem.split(":", 1)[0] ?? ecosystem;

/**
 * A package name as both advisories and components are looked up by: PyPI per PEP 503 (lower case, runs of -_. as
 * one -), NuGet and Packagist lower case (their names are case-insensitive), Maven "group:artifact", Go module paths as written.
 */
export function normalisedName(ecosystem: string, name: string): string {
  switch (ecosystemBase(ecosystem)) {
    case "PyPI":
      return name.toLowerCase().replace(/[-_.]+/g, "-");
    case "NuGet":
    case "Packagist":
      return name.toLowerCase();
    default:
      return name;
  }
}

const RPM_VENDORS: Record<string, string> = {
  redhat: "Red Hat",
  rocky: "Rocky Linux",
  almalinux: "AlmaLinux",
  suse: "SUSE",
  opensuse: "openSUSE",
};

/** "debian-12", "12", "bookworm"... -> "Debian:12" when a release number is there, else "Debian". */
function withRelease(ecosystem: string, distro: string | undefined, pattern: RegExp, format = (r: string) => r) {
  const release = distro ? pattern.exec(distro)?.[1] : undefined;
  return release ? `${ecosystem}:${format(release)}` : ecosystem;
}

export type PurlPackage =
  | { kind: "package"; package: PackageVersion }
  | { kind: "unknown-ecosystem"; purlType: string }
  | { kind: "unusable"; reason: string };

/** The package version a purl names, in OSV's terms (ecosystem, normalised name, version). */
export function packageOfPurl(purl: string): PurlPackage {
  let p: PackageURL;
  try {
    p = PackageURL.fromString(purl);
  } catch {
    return { kind: "unusable", reason: "not a valid purl" };
  }
  if (!p.version) return { kind: "unusable", reason: "the purl has no version" };
  const q = (p.qualifiers ?? {}) as Record<string, string | undefined>;
  const ns = p.namespace ?? "";
  const at = (ecosystem: string, name: string, version = p.version ?? ""): PurlPackage => ({
    kind: "package",
    package: { ecosystem, name: normalisedName(ecosystem, name), version },
  });
  switch (p.type) {
    case "npm":
      return at("npm", ns ? `${ns}/${p.name}` : p.name);
    case "cargo":
      return at("crates.io", p.name);
    case "golang":
      // `pkg:golang/go` is the Go release a binary was built with (osv-scalibr, cdxgen's go list): OSV's `stdlib`.
      return at("Go", ns ? `${ns}/${p.name}` : p.name === "go" ? "stdlib" : p.name);
    case "pypi":
      return at("PyPI", p.name);
    case "maven":
      return ns ? at("Maven", `${ns}:${p.name}`) : { kind: "unusable", reason: "a Maven purl needs a group" };
    case "nuget":
      return at("NuGet", p.name);
    case "gem":
      return at("RubyGems", p.name);
    case "deb": {
      const vendor = ns.toLowerCase() === "ubuntu" ? "Ubuntu" : ns.toLowerCase() === "debian" ? "Debian" : null;
      if (!vendor) return { kind: "unknown-ecosystem", purlType: `deb/${ns}` };
      return at(withRelease(vendor, q.distro, vendor === "Debian" ? /(\d+)/ : /(\d+\.\d+)/), p.name);
    }
    case "apk": {
      if (ns.toLowerCase() !== "alpine") return { kind: "unknown-ecosystem", purlType: `apk/${ns}` };
      return at(
        withRelease("Alpine", q.distro, /(\d+\.\d+)/, (r) => `v${r}`),
        p.name,
      );
    }
    case "rpm": {
      const vendor = RPM_VENDORS[ns.toLowerCase()];
      if (!vendor) return { kind: "unknown-ecosystem", purlType: `rpm/${ns}` };
      const version = q.epoch && !p.version.includes(":") ? `${q.epoch}:${p.version}` : p.version;
      return at(vendor, p.name, version);
    }
    default:
      return { kind: "unknown-ecosystem", purlType: p.type };
  }
}
