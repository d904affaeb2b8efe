// An OSV advisory (https://ossf.github.io/osv-schema/) read into what the matcher keeps: ids, dates, the rating,
// and per affected package its ranges and versions. Anything malformed makes the advisory skipped (with a reason),
// never the import aborted.
import { normalisedName } from "@sca/purl-package";
import { cvss3Rating, rateSeverity, type CvssEntry, type SeverityRating } from "./severity.ts";

export type EventKind = "introduced" | "fixed" | "last_affected" | "limit";

export interface RangeEvent {
  kind: EventKind;
  version: string;
}

export interface AffectedRange {
  /** SEMVER or ECOSYSTEM (GIT ranges name commits, which components do not carry: dropped). */
  type: "SEMVER" | "ECOSYSTEM";
  events: RangeEvent[];
}

export interface AffectedPackage {
  ecosystem: string;
  /** Normalised for the ecosystem (@sca/purl-package normalisedName). */
  name: string;
  ranges: AffectedRange[];
  versions: string[];
}

export interface Advisory {
  id: string;
  modified: Date;
  published: Date | null;
  /** Set when the advisory was withdrawn: it no longer matches from then on. */
  withdrawn: Date | null;
  aliases: string[];
  summary: string;
  severity: SeverityRating;
  /** The best CVSS v3.x rating of its vectors (the severity may come from a v4 one); null without a v3 vector. */
  cvss3: SeverityRating | null;
  references: string[];
  affected: AffectedPackage[];
}

export class MalformedAdvisory extends Error {}

const MAX_ID = 200;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === "string") : []);

function dateOf(v: unknown, field: string, required: boolean): Date | null {
  if (v === undefined || v === null) {
    if (required) throw new MalformedAdvisory(`"${field}" is missing`);
    return null;
  }
  const d = typeof v === "string" ? new Date(v) : null;
  if (!d || Number.isNaN(d.getTime())) throw new MalformedAdvisory(`"${field}" is not an RFC 3339 time`);
  return d;
}

const EVENT_KINDS: readonly EventKind[] = ["introduced", "fixed", "last_affected", "limit"];

function rangeOf(raw: unknown): AffectedRange | null {
  if (!isRecord(raw) || (raw.type !== "SEMVER" && raw.type !== "ECOSYSTEM")) return null;
  if (!Array.isArray(raw.events)) throw new MalformedAdvisory("a range has no events");
  const events: RangeEvent[] = [];
  for (const e of raw.events) {
    if (!isRecord(e)) throw new MalformedAdvisory("a range event is not an object");
    const kind = EVENT_KINDS.find((k) => typeof e[k] === "string");
    if (!kind) throw new MalformedAdvisory("a range event names no version");
    events.push({ kind, version: e[kind] as string });
  }
  return { type: raw.type, events };
}

function affectedOf(raw: unknown): AffectedPackage | null {
  if (!isRecord(raw)) throw new MalformedAdvisory("an affected entry is not an object");
  const pkg = raw.package;
  // An entry without a package names commits only (a GIT range): nothing a component carries.
  if (!isRecord(pkg)) return null;
  if (typeof pkg.ecosystem !== "string" || typeof pkg.name !== "string" || !pkg.ecosystem || !pkg.name)
    throw new MalformedAdvisory("an affected package has no ecosystem or name");
  const ranges = Array.isArray(raw.ranges) ? raw.ranges.map(rangeOf).filter((r) => r !== null) : [];
  return {
    ecosystem: pkg.ecosystem,
    name: normalisedName(pkg.ecosystem, pkg.name),
    ranges,
    versions: strings(raw.versions),
  };
}

function cvssEntries(v: unknown): CvssEntry[] {
  if (!Array.isArray(v)) return [];
  return v
    .filter(isRecord)
    .flatMap((s) =>
      typeof s.type === "string" && typeof s.score === "string" ? [{ type: s.type, score: s.score }] : [],
    );
}

const ratingWord = (v: unknown): unknown => (isRecord(v) ? v.severity : undefined);

/** Reads an OSV advisory; throws MalformedAdvisory saying what is wrong. */
export function readAdvisory(raw: unknown): Advisory {
  if (!isRecord(raw)) throw new MalformedAdvisory("the document is not a JSON object");
  const id = raw.id;
  if (typeof id !== "string" || id.length === 0 || id.length > MAX_ID || /\s/.test(id))
    throw new MalformedAdvisory('"id" is missing or not an identifier');
  const modified = dateOf(raw.modified, "modified", true) as Date;
  if (raw.affected !== undefined && !Array.isArray(raw.affected))
    throw new MalformedAdvisory('"affected" is not a list');
  const affectedRaw = (raw.affected as unknown[] | undefined) ?? [];
  const affected = affectedRaw.map(affectedOf).filter((a) => a !== null);
  const vectors = [
    ...cvssEntries(raw.severity),
    ...affectedRaw.filter(isRecord).flatMap((a) => cvssEntries(a.severity)),
  ];
  const words = [
    ratingWord(raw.database_specific),
    ...affectedRaw.filter(isRecord).flatMap((a) => [ratingWord(a.ecosystem_specific), ratingWord(a.database_specific)]),
  ];
  const severity = rateSeverity(vectors, words);
  const references = Array.isArray(raw.references)
    ? raw.references.filter(isRecord).flatMap((r) => (typeof r.url === "string" ? [r.url] : []))
    : [];
  return {
    id,
    modified,
    published: dateOf(raw.published, "published", false),
    withdrawn: dateOf(raw.withdrawn, "withdrawn", false),
    aliases: strings(raw.aliases).filter((a) => a !== id && a.length <= MAX_ID),
    summary:
      typeof raw.summary === "string" ? raw.summary : typeof raw.details === "string" ? raw.details.slice(0, 200) : "",
    severity,
    cvss3: cvss3Rating(vectors, severity),
    references,
    affected,
  };
}

/** Withdrawn at or before `now`: the advisory no longer matches. */
export const isWithdrawn = (a: Advisory, now: Date): boolean => a.withdrawn !== null && a.withdrawn <= now;
