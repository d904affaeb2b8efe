// Whether a version is inside an advisory's affected package, by OSV's evaluation rules: within a range the events
// sorted by version; introduced opens (introduced "0": from the first version), fixed closes at the fixed version
// itself, last_affected closes after it, limit caps the range; an explicit versions list matches by equality. A
// version (or an event) the ecosystem's scheme cannot read matches only through the versions list.
import type { AffectedPackage, EventKind } from "./advisory.ts";
import { ecosystemBase } from "@sca/purl-package";
import { goScheme, schemeOf, semverScheme, type VersionScheme } from "@sca/version-order";

interface PreparedEvent {
  kind: EventKind;
  version: string;
  /** null only for introduced "0". */
  parsed: unknown;
}

interface PreparedRange {
  scheme: VersionScheme;
  events: PreparedEvent[];
  limits: unknown[];
}

export interface PreparedAffected {
  ranges: PreparedRange[];
  versions: ReadonlySet<string>;
  /** Ranges the scheme could not read (an event that is not a version): counted, never matched. */
  unreadableRanges: number;
}

/** SEMVER ranges use SemVer whatever the ecosystem, except Go's, whose versions need their `v` handled. */
function schemeOfRange(type: "SEMVER" | "ECOSYSTEM", ecosystem: string): VersionScheme | null {
  if (type === "SEMVER") return ecosystemBase(ecosystem) === "Go" ? goScheme : semverScheme;
  return schemeOf(ecosystem);
}

/** Parses and sorts an affected package's events once, for every version matched against it later. */
export function prepareAffected(affected: AffectedPackage): PreparedAffected {
  const ranges: PreparedRange[] = [];
  let unreadableRanges = 0;
  for (const range of affected.ranges) {
    const scheme = schemeOfRange(range.type, affected.ecosystem);
    if (!scheme) {
      unreadableRanges++;
      continue;
    }
    const events: PreparedEvent[] = [];
    const limits: unknown[] = [];
    let readable = true;
    for (const e of range.events) {
      if (e.kind === "introduced" && e.version === "0") {
        events.push({ ...e, parsed: null });
        continue;
      }
      const parsed = scheme.parse(e.version);
      if (parsed === null) {
        readable = false;
        break;
      }
      if (e.kind === "limit") limits.push(parsed);
      else events.push({ ...e, parsed });
    }
    if (!readable) {
      unreadableRanges++;
      continue;
    }
    // Stable sort: "0" first, then by version; at one version, the order written (introduced before last_affected).
    events.sort((a, b) =>
      a.parsed === null ? (b.parsed === null ? 0 : -1) : b.parsed === null ? 1 : scheme.compare(a.parsed, b.parsed),
    );
    ranges.push({ scheme, events, limits });
  }
  return { ranges, versions: new Set(affected.versions), unreadableRanges };
}

function inRange(range: PreparedRange, version: unknown): boolean {
  const { scheme } = range;
  let affected = false;
  for (const e of range.events) {
    if (e.kind === "introduced") {
      if (e.parsed === null || scheme.compare(version, e.parsed) >= 0) affected = true;
    } else if (e.kind === "fixed") {
      if (scheme.compare(version, e.parsed) >= 0) affected = false;
    } else if (e.kind === "last_affected") {
      if (scheme.compare(version, e.parsed) > 0) affected = false;
    }
  }
  if (affected && range.limits.length > 0) return range.limits.some((limit) => scheme.compare(version, limit) < 0);
  return affected;
}

/** Whether `version` is affected, and if so the fixed versions above it (for the finding's remediation). */
export function affects(prepared: PreparedAffected, version: string): { affected: boolean; fixedVersions: string[] } {
  let affected = prepared.versions.has(version);
  const fixed: string[] = [];
  const parsedBy = new Map<VersionScheme, unknown>();
  for (const range of prepared.ranges) {
    let parsed = parsedBy.get(range.scheme);
    if (parsed === undefined) {
      parsed = range.scheme.parse(version);
      parsedBy.set(range.scheme, parsed);
    }
    if (parsed === null) continue;
    if (!affected && inRange(range, parsed)) affected = true;
    for (const e of range.events) {
      if (e.kind === "fixed" && range.scheme.compare(e.parsed, parsed) > 0 && !fixed.includes(e.version))
        fixed.push(e.version);
    }
  }
  return { affected, fixedVersions: affected ? fixed : [] };
}
