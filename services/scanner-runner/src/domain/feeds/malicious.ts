// Malicious-package verdicts from OSV MAL- records: which records name a package, and whether a version of it is
// affected. The records of ossf/malicious-packages affect a package from an `introduced` version on (almost always
// "0": every version) or list the versions they saw.
import semver from "semver";

export interface MaliciousRange {
  type: string;
  events: Record<string, string>[];
}

/** What the verdict needs of one `affected` entry of a MAL- record. */
export interface MaliciousRecord {
  id: string;
  ecosystem: string;
  /** As the record names it. */
  name: string;
  versions: string[];
  ranges: MaliciousRange[];
  /** The reporting source (`database_specific.malicious-packages-origins[].source`), else "ossf-malicious-packages". */
  source: string;
  withdrawn: boolean;
}

export type MaliciousVerdict = { state: "flagged"; id: string; source: string } | { state: "clear" };

function rangeAffects(range: MaliciousRange, version: string): boolean {
  const introduced = range.events.map((e) => e.introduced).filter((v): v is string => v !== undefined);
  const ends = range.events.filter((e) => e.fixed !== undefined || e.last_affected !== undefined || e.limit);
  if (ends.length === 0 && introduced.includes("0")) return true;
  // Bounded ranges are compared only where the order is semver's; an ECOSYSTEM range of another order relies on
  // the record's `versions` list, which OSV defines as the enumeration of such ranges.
  if (range.type !== "SEMVER" || !semver.valid(version)) return false;
  const events = [...range.events];
  let affected = false;
  for (const e of events) {
    if (
      e.introduced !== undefined &&
      (e.introduced === "0" || (semver.valid(e.introduced) && semver.gte(version, e.introduced)))
    )
      affected = true;
    if (e.fixed !== undefined && semver.valid(e.fixed) && semver.gte(version, e.fixed)) affected = false;
    if (e.last_affected !== undefined && semver.valid(e.last_affected) && semver.gt(version, e.last_affected))
      affected = false;
  }
  return affected;
}

/** The verdict for a version: the first live record (by id) that lists the version or whose range holds it. */
export function maliciousVerdictOf(records: readonly MaliciousRecord[], version: string): MaliciousVerdict {
  const live = records.filter((r) => !r.withdrawn).sort((a, b) => a.id.localeCompare(b.id));
  const v = version.trim();
  for (const r of live)
    if (r.versions.includes(v) || r.ranges.some((range) => rangeAffects(range, v)))
      return { state: "flagged", id: r.id, source: r.source };
  return { state: "clear" };
}

/** The affected packages of one OSV MAL- record, or null when the text is not one. */
export function readMaliciousRecord(json: unknown): MaliciousRecord[] | null {
  const doc = json as {
    id?: unknown;
    withdrawn?: unknown;
    affected?: unknown;
    database_specific?: { "malicious-packages-origins"?: { source?: unknown }[] };
  } | null;
  if (!doc || typeof doc.id !== "string" || !doc.id.startsWith("MAL-") || !Array.isArray(doc.affected)) return null;
  const origin = doc.database_specific?.["malicious-packages-origins"]?.find((o) => typeof o?.source === "string");
  const source = typeof origin?.source === "string" ? origin.source : "ossf-malicious-packages";
  const out: MaliciousRecord[] = [];
  for (const a of doc.affected as Record<string, unknown>[]) {
    const pkg = a?.package as { ecosystem?: unknown; name?: unknown } | undefined;
    if (typeof pkg?.ecosystem !== "string" || typeof pkg.name !== "string" || pkg.name === "") return null;
    const versions = Array.isArray(a.versions) ? a.versions.filter((v): v is string => typeof v === "string") : [];
    const ranges = Array.isArray(a.ranges)
      ? (a.ranges as MaliciousRange[]).filter((r) => typeof r?.type === "string" && Array.isArray(r.events))
      : [];
    out.push({
      id: doc.id,
      ecosystem: pkg.ecosystem,
      name: pkg.name,
      versions,
      ranges,
      source,
      withdrawn: typeof doc.withdrawn === "string" && doc.withdrawn !== "",
    });
  }
  return out.length > 0 ? out : null;
}
