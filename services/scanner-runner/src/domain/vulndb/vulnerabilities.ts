// One vulnerability, many names (ARCHITECTURE.md): advisories whose ids and aliases meet are one vulnerability.
// Its canonical id is a CVE when any name is one (the lowest), else a GHSA id, else the lowest advisory id.
import { isWithdrawn, type Advisory } from "./advisory.ts";
import { betterSeverity, UNKNOWN_SEVERITY, type SeverityRating } from "./severity.ts";

export interface VulnerabilityRecord {
  id: string;
  /** Every other name, sorted. */
  aliases: string[];
  summary: string;
  severity: SeverityRating;
  /** The highest CVSS v3.x rating over its advisories; null when none has a v3 vector. */
  cvss3: SeverityRating | null;
  publishedAt: Date | null;
  modifiedAt: Date;
  /** At most 20. */
  references: string[];
}

export const MAX_REFERENCES = 20;

class DisjointSets {
  private readonly parent = new Map<string, string>();
  find(x: string): string {
    let root = x;
    for (let p = this.parent.get(root); p !== undefined && p !== root; p = this.parent.get(root)) root = p;
    if (!this.parent.has(x)) this.parent.set(x, x);
    // Path compression.
    for (let y = x; y !== root;) {
      const next = this.parent.get(y) as string;
      this.parent.set(y, root);
      y = next;
    }
    return root;
  }
  union(a: string, b: string): void {
    const ra = this.find(a);
    const rb = this.find(b);
    if (ra !== rb) this.parent.set(ra, rb);
  }
}

const rankOfName = (id: string): number => (id.startsWith("CVE-") ? 0 : id.startsWith("GHSA-") ? 1 : 2);

/** Picks the canonical name of a group (see the file's comment). */
export function canonicalName(names: Iterable<string>, advisoryIds: ReadonlySet<string>): string {
  let best: string | null = null;
  for (const n of names) {
    // A non-CVE name that only appears as an alias (no advisory of that id here) is not chosen over an advisory's id.
    const eligible = n.startsWith("CVE-") || advisoryIds.has(n);
    if (!eligible) continue;
    if (best === null || rankOfName(n) < rankOfName(best) || (rankOfName(n) === rankOfName(best) && n < best)) best = n;
  }
  return best ?? [...names].sort()[0] ?? "";
}

/**
 * Groups the advisories in force at `now` into vulnerabilities: the canonical id of each advisory, and each
 * vulnerability's record (merged over its advisories).
 */
export function groupVulnerabilities(
  advisories: readonly Advisory[],
  now: Date,
): { canonicalOf: Map<string, string>; vulnerabilities: Map<string, VulnerabilityRecord> } {
  const active = advisories.filter((a) => !isWithdrawn(a, now));
  const sets = new DisjointSets();
  for (const a of active) {
    sets.find(a.id);
    for (const alias of a.aliases) sets.union(a.id, alias);
  }
  const advisoryIds = new Set(active.map((a) => a.id));
  const members = new Map<string, Set<string>>();
  const groupAdvisories = new Map<string, Advisory[]>();
  for (const a of active) {
    for (const name of [a.id, ...a.aliases]) {
      const root = sets.find(name);
      let set = members.get(root);
      if (!set) members.set(root, (set = new Set()));
      set.add(name);
    }
    const root = sets.find(a.id);
    const list = groupAdvisories.get(root) ?? [];
    list.push(a);
    groupAdvisories.set(root, list);
  }
  const canonicalOf = new Map<string, string>();
  const vulnerabilities = new Map<string, VulnerabilityRecord>();
  for (const [root, group] of groupAdvisories) {
    const names = members.get(root) ?? new Set<string>();
    const id = canonicalName(names, advisoryIds);
    // The canonical advisory's own text first, then the others in id order.
    const ordered = [...group].sort((x, y) => (x.id === id ? -1 : y.id === id ? 1 : x.id < y.id ? -1 : 1));
    let severity = UNKNOWN_SEVERITY;
    let cvss3: SeverityRating | null = null;
    const references = new Set<string>();
    let published: Date | null = null;
    let modified = ordered[0]?.modified ?? new Date(0);
    for (const a of ordered) {
      canonicalOf.set(a.id, id);
      severity = betterSeverity(severity, a.severity);
      if (a.cvss3) cvss3 = cvss3 ? betterSeverity(cvss3, a.cvss3) : a.cvss3;
      for (const r of a.references) if (references.size < MAX_REFERENCES) references.add(r);
      if (a.published && (!published || a.published < published)) published = a.published;
      if (a.modified > modified) modified = a.modified;
    }
    vulnerabilities.set(id, {
      id,
      aliases: [...names].filter((n) => n !== id).sort(),
      summary: ordered.find((a) => a.summary)?.summary ?? "",
      severity,
      cvss3,
      publishedAt: published,
      modifiedAt: modified,
      references: [...references],
    });
  }
  return { canonicalOf, vulnerabilities };
}
