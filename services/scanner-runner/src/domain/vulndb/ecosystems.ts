// The OSV ecosystems the matcher knows and each one's version scheme (how a purl names a package of one is
// @sca/purl-package). An ecosystem not listed here is reported as unknown, never guessed.
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
} from "./version-order.ts";

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
