// Version ordering per OSV ecosystem, each from a maintained library where one exists (docs/vulnerability-database.md):
// a scheme parses a version once (null: not a version of that scheme) and compares parsed versions.
import { createRequire } from "node:module";
import * as pep440 from "@renovatebot/pep440";
import * as rubySemver from "@renovatebot/ruby-semver";
import nugetSemver from "@snyk/nuget-semver";
import semver, { type SemVer } from "semver";
import { compareApkVersions, isApkVersion } from "./apk-version.ts";
import { compareDpkgVersions, isDpkgVersion } from "./dpkg-version.ts";
import { compareRpmVersions } from "./rpm-version.ts";

// A CommonJS library without type declarations.
const require = createRequire(import.meta.url);
const mavenComparableVersion = require("mvncmp") as { compare(a: string, b: string): number };

export interface VersionScheme<P = unknown> {
  readonly name: string;
  /** The parsed version, or null when the text is not a version of this scheme (never thrown). */
  parse(version: string): P | null;
  compare(a: P, b: P): number;
}

const sign = (n: number): number => (n < 0 ? -1 : n > 0 ? 1 : 0);

/** A scheme whose library compares strings: parse only checks the text (and keeps it). */
function stringScheme(name: string, valid: (v: string) => boolean, compare: (a: string, b: string) => number) {
  return {
    name,
    parse: (v: string) => {
      try {
        return v.length > 0 && valid(v) ? v : null;
      } catch {
        return null;
      }
    },
    compare: (a: string, b: string) => sign(compare(a, b)),
  } satisfies VersionScheme<string>;
}

/**
 * npm and crates.io: SemVer 2.0 as node-semver reads it (build metadata ignored). A version missing its minor or
 * patch number ("1", "1.2", as some SBOMs write them) is read with zeros, as OSV-Scanner's SemVer parser does.
 */
export const semverScheme: VersionScheme<SemVer> = {
  name: "semver",
  parse: (v) =>
    semver.parse(v) ?? (/^\d+(\.\d+)?$/.test(v) ? semver.parse(`${v}${v.includes(".") ? ".0" : ".0.0"}`) : null),
  compare: (a, b) => a.compare(b),
};

/**
 * Go module versions: SemVer with a `v` prefix; pseudo-versions (v0.0.0-2019...-abcdef) are prereleases and sort
 * as SemVer says; `+incompatible` is build metadata and ignored. The standard library's `go1.21` / `1.21` (OSV
 * writes toolchain versions without the prefix) gains its missing minor and patch: 1.21 is 1.21.0.
 */
export function goSemverText(version: string): string {
  const v = version.replace(/^(go|v)/, "");
  const toolchain = /^(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:(rc|beta|alpha)(\d+))?$/.exec(v);
  if (!toolchain) return v;
  const [, major, minor, patch, pre, preNumber] = toolchain;
  return `${major}.${minor ?? 0}.${patch ?? 0}${pre ? `-${pre}.${preNumber}` : ""}`;
}

export const goScheme: VersionScheme<SemVer> = {
  name: "go",
  parse: (v) => semver.parse(goSemverText(v)),
  compare: (a, b) => a.compare(b),
};

/** PyPI: PEP 440 (dev < a < b < rc < final < post; epochs; local versions). */
export const pep440Scheme = stringScheme("pep440", (v) => pep440.valid(v) !== null, pep440.compare);

/** Maven: Maven 3's ComparableVersion (qualifiers alpha < beta < milestone < rc < snapshot < "" = ga = final < sp). */
export const mavenScheme = stringScheme(
  "maven",
  (v) => /^[\w.+~-]+$/.test(v),
  (a, b) => mavenComparableVersion.compare(a, b),
);

/** NuGet: NuGet's SemVer 2.0 with a fourth (revision) number and case-insensitive prerelease labels. */
export const nugetScheme = stringScheme("nuget", (v) => nugetSemver.valid(v) !== null, nugetSemver.compare);

/** RubyGems: Gem::Version (segments; a letter makes a prerelease). */
export const rubygemsScheme = stringScheme(
  "rubygems",
  (v) => rubySemver.valid(v) !== null,
  (a, b) => (rubySemver.lt(a, b) ? -1 : rubySemver.eq(a, b) ? 0 : 1),
);

/** Debian and Ubuntu: dpkg's ordering (epoch, upstream version with ~, Debian revision). */
export const dpkgScheme = stringScheme("dpkg", isDpkgVersion, compareDpkgVersions);

/** Alpine: apk-tools' ordering (digits, letter, _alpha.._p suffixes, -rN). */
export const apkScheme = stringScheme("apk", isApkVersion, compareApkVersions);

/** Red Hat, Rocky Linux, AlmaLinux, SUSE, openSUSE: rpm's rpmvercmp over epoch:version-release. */
export const rpmScheme = stringScheme("rpm", (v) => /^[A-Za-z0-9._+~^:-]+$/.test(v), compareRpmVersions);
