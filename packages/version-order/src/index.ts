// @sca/version-order: the OSV ecosystems whose versions we order, each one's version scheme (how a purl names a
// package of one is @sca/purl-package), and version ranges read in those orders. Shared by the runner's matcher and
// projects' portfolio search. An ecosystem not listed here is reported as unknown, never guessed.
import { ecosystemBase } from "@sca/purl-package";
import {
  apkScheme,
  dpkgScheme,
  goScheme,
  mavenScheme,
  nugetScheme,
  pep440Scheme,
  rpmScheme,
  rubygemsScheme,
  semverScheme,
  type VersionScheme,
} from "./schemes.ts";

/** OSV ecosystem (without its ":release") -> version scheme. */
const SCHEMES: ReadonlyMap<string, VersionScheme> = new Map<string, VersionScheme>([
  ["npm", semverScheme],
  ["crates.io", semverScheme],
  ["Go", goScheme],
  ["PyPI", pep440Scheme],
  ["Maven", mavenScheme],
  ["NuGet", nugetScheme],
  ["RubyGems", rubygemsScheme],
  ["Debian", dpkgScheme],
  ["Ubuntu", dpkgScheme],
  ["Alpine", apkScheme],
  ["Red Hat", rpmScheme],
  ["Rocky Linux", rpmScheme],
  ["AlmaLinux", rpmScheme],
  ["SUSE", rpmScheme],
  ["openSUSE", rpmScheme],
]);

/** The version scheme of an OSV ecosystem, or null when the matcher does not know it. */
export const schemeOf = (ecosystem: string): VersionScheme | null => SCHEMES.get(ecosystemBase(ecosystem)) ?? null;

export const knownEcosystems = (): string[] => [...SCHEMES.keys()];

export * from "./schemes.ts";
export { compareApkVersions, isApkVersion } from "./apk-version.ts";
export { compareDpkgVersions, isDpkgVersion } from "./dpkg-version.ts";
export { compareRpmVersions, rpmvercmp } from "./rpm-version.ts";
export * from "./version-range.ts";
