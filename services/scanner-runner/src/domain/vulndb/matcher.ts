// The matcher: the advisories in force, per (ecosystem, normalised package name), each affected package prepared
// once; a distinct package version is looked up with one map access and its verdict cached for the index's life,
// within a byte budget (an index is built per database version, so the cache is per database version too).
import { LRUCache } from "lru-cache";
import { isWithdrawn, type Advisory } from "./advisory.ts";
import { affects, prepareAffected, type PreparedAffected } from "./affected.ts";
import { normalisedName, type PackageVersion } from "@sca/purl-package";
import { schemeOf } from "@sca/version-order";
import { groupVulnerabilities, type VulnerabilityRecord } from "./vulnerabilities.ts";

export interface AffectingVulnerability {
  vulnerabilityId: string;
  fixedVersions: string[];
}

export type Verdict =
  { assessed: true; vulnerabilities: AffectingVulnerability[] } | { assessed: false; reason: "unknown-ecosystem" };

interface IndexedAffected {
  vulnerabilityId: string;
  prepared: PreparedAffected;
}

const keyOf = (ecosystem: string, name: string): string => `${ecosystem}\u0000${name}`;

/** Bytes of verdicts kept per index, least recently used out first (a miss only costs a lookup). */
export const VERDICT_CACHE_MAX_BYTES = 16 * 1024 ** 2;

/** What a kept verdict costs: its key and ids as UTF-16, and about 64 bytes per object and array. */
function verdictBytes(verdict: Verdict, key: string): number {
  let bytes = 2 * key.length + 128;
  if (verdict.assessed)
    for (const v of verdict.vulnerabilities)
      bytes += 128 + 2 * v.vulnerabilityId.length + v.fixedVersions.reduce((n, f) => n + 64 + 2 * f.length, 0);
  return bytes;
}

export class AdvisoryIndex {
  readonly vulnerabilities: ReadonlyMap<string, VulnerabilityRecord>;
  readonly advisoryCount: number;
  private readonly byPackage = new Map<string, IndexedAffected[]>();
  private readonly verdicts = new LRUCache<string, Verdict>({
    maxSize: VERDICT_CACHE_MAX_BYTES,
    sizeCalculation: verdictBytes,
  });
  /** Every name of every vulnerability, upper-cased, to its canonical id: built at the first lookup by name. */
  private names: Map<string, string> | null = null;

  constructor(advisories: readonly Advisory[], now = new Date()) {
    const { canonicalOf, vulnerabilities } = groupVulnerabilities(advisories, now);
    this.vulnerabilities = vulnerabilities;
    let count = 0;
    for (const a of advisories) {
      if (isWithdrawn(a, now)) continue;
      count++;
      const vulnerabilityId = canonicalOf.get(a.id) ?? a.id;
      for (const affected of a.affected) {
        const key = keyOf(affected.ecosystem, normalisedName(affected.ecosystem, affected.name));
        const list = this.byPackage.get(key) ?? [];
        list.push({ vulnerabilityId, prepared: prepareAffected(affected) });
        this.byPackage.set(key, list);
      }
    }
    this.advisoryCount = count;
  }

  /** The package names (ecosystem, name) the index holds advisories for. */
  get packageCount(): number {
    return this.byPackage.size;
  }

  /** The vulnerabilities whose advisories in force name the package, at any version (sorted). */
  vulnerabilitiesOf(ecosystem: string, name: string): string[] {
    const entries = this.byPackage.get(keyOf(ecosystem, normalisedName(ecosystem, name))) ?? [];
    return [...new Set(entries.map((e) => e.vulnerabilityId))].sort();
  }

  /**
   * The vulnerability one of its names (its canonical id or any alias) stands for, ignoring case (people type
   * "ghsa-..." or "cve-..."), with that name as the advisories spell it.
   */
  vulnerabilityNamed(name: string): { name: string; vulnerability: VulnerabilityRecord } | null {
    if (!this.names) {
      this.names = new Map();
      for (const v of this.vulnerabilities.values())
        for (const n of [v.id, ...v.aliases])
          if (!this.names.has(n.toUpperCase())) this.names.set(n.toUpperCase(), v.id);
    }
    const folded = name.toUpperCase();
    const vulnerability = this.vulnerabilities.get(this.names.get(folded) ?? "");
    if (!vulnerability) return null;
    const spelt = [vulnerability.id, ...vulnerability.aliases].find((n) => n.toUpperCase() === folded) ?? name;
    return { name: spelt, vulnerability };
  }

  /** Forgets the cached verdicts (benchmarks measure the cold path). */
  clearVerdicts(): void {
    this.verdicts.clear();
  }

  match(pkg: PackageVersion): Verdict {
    const name = normalisedName(pkg.ecosystem, pkg.name);
    const key = `${keyOf(pkg.ecosystem, name)}\u0000${pkg.version}`;
    const cached = this.verdicts.get(key);
    if (cached) return cached;
    const verdict = this.evaluate(pkg.ecosystem, name, pkg.version);
    this.verdicts.set(key, verdict);
    return verdict;
  }

  private evaluate(ecosystem: string, name: string, version: string): Verdict {
    if (!schemeOf(ecosystem)) return { assessed: false, reason: "unknown-ecosystem" };
    const candidates = this.byPackage.get(keyOf(ecosystem, name));
    if (!candidates) return { assessed: true, vulnerabilities: [] };
    const found = new Map<string, Set<string>>();
    for (const c of candidates) {
      const { affected, fixedVersions } = affects(c.prepared, version);
      if (!affected) continue;
      const fixed = found.get(c.vulnerabilityId) ?? new Set<string>();
      for (const f of fixedVersions) fixed.add(f);
      found.set(c.vulnerabilityId, fixed);
    }
    const vulnerabilities = [...found]
      .map(([vulnerabilityId, fixed]) => ({ vulnerabilityId, fixedVersions: [...fixed] }))
      .sort((a, b) => (a.vulnerabilityId < b.vulnerabilityId ? -1 : 1));
    return { assessed: true, vulnerabilities };
  }
}

/** The distinct package versions among many (the unit the matcher works in). */
export function distinctPackages(packages: Iterable<PackageVersion>): PackageVersion[] {
  const seen = new Map<string, PackageVersion>();
  for (const p of packages) {
    const key = `${p.ecosystem}\u0000${normalisedName(p.ecosystem, p.name)}\u0000${p.version}`;
    if (!seen.has(key)) seen.set(key, p);
  }
  return [...seen.values()];
}
