// A scan's verdicts: its components named by purl, reduced to distinct package versions, each matched once, and
// the vulnerabilities the verdicts name (proto sca.projects.v1.RecordScanMatchesRequest). Components whose purl
// names an ecosystem the matcher does not know are counted by purl type (reported in the scan's log, never guessed).
import { packageOfPurl, type PackageVersion } from "@sca/purl-package";
import { distinctPackages, type AdvisoryIndex, type AffectingVulnerability } from "./matcher.ts";
import type { VulnerabilityRecord } from "./vulnerabilities.ts";

export interface PackageVerdict {
  package: PackageVersion;
  vulnerabilities: AffectingVulnerability[];
}

export interface ScanVerdicts {
  /** One per distinct assessed package version (an empty list: assessed, clean). */
  verdicts: PackageVerdict[];
  /** Each vulnerability a verdict names, once. */
  vulnerabilities: VulnerabilityRecord[];
  /** Components not assessed because their ecosystem is unknown, by purl type. */
  unknownEcosystems: Map<string, number>;
  /** Components without a usable purl (none, or no version). */
  unnamed: number;
}

export function scanVerdictsOf(index: AdvisoryIndex, purls: Iterable<string | null>): ScanVerdicts {
  const steps = verdictSteps(index, purls, Infinity);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * The same, giving the event loop a turn after every `every` package versions matched: a scan matches while its
 * inventory is being ingested (the ingestion's request and answer are I/O of this process), never blocking it.
 */
export async function scanVerdictsYielding(
  index: AdvisoryIndex,
  purls: Iterable<string | null>,
  every = 1000,
): Promise<ScanVerdicts> {
  const steps = verdictSteps(index, purls, every);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** The matching, pausing (a yield) after every `every` package versions. */
function* verdictSteps(
  index: AdvisoryIndex,
  purls: Iterable<string | null>,
  every: number,
): Generator<void, ScanVerdicts> {
  const packages: PackageVersion[] = [];
  const unknownEcosystems = new Map<string, number>();
  let unnamed = 0;
  for (const purl of purls) {
    const named = purl ? packageOfPurl(purl) : null;
    if (named?.kind === "package") packages.push(named.package);
    else if (named?.kind === "unknown-ecosystem")
      unknownEcosystems.set(named.purlType, (unknownEcosystems.get(named.purlType) ?? 0) + 1);
    else unnamed++;
  }
  const verdicts: PackageVerdict[] = [];
  const named = new Set<string>();
  let matched = 0;
  for (const pkg of distinctPackages(packages)) {
    if (++matched % every === 0) yield;
    const verdict = index.match(pkg);
    if (!verdict.assessed) {
      unknownEcosystems.set(pkg.ecosystem, (unknownEcosystems.get(pkg.ecosystem) ?? 0) + 1);
      continue;
    }
    verdicts.push({ package: pkg, vulnerabilities: verdict.vulnerabilities });
    for (const v of verdict.vulnerabilities) named.add(v.vulnerabilityId);
  }
  const vulnerabilities = [...named].sort().flatMap((id) => {
    const record = index.vulnerabilities.get(id);
    return record ? [record] : [];
  });
  return { verdicts, vulnerabilities, unknownEcosystems, unnamed };
}

/**
 * The new verdicts of package versions held by projects (after an advisory refresh) and the vulnerabilities they
 * name. A version of an ecosystem the matcher does not know gets no verdict (its findings stay as they are).
 */
export function refreshVerdictsOf(
  index: AdvisoryIndex,
  versions: Iterable<PackageVersion>,
): { verdicts: PackageVerdict[]; vulnerabilities: VulnerabilityRecord[] } {
  const verdicts: PackageVerdict[] = [];
  const named = new Set<string>();
  for (const pkg of versions) {
    const verdict = index.match(pkg);
    if (!verdict.assessed) continue;
    verdicts.push({ package: pkg, vulnerabilities: verdict.vulnerabilities });
    for (const v of verdict.vulnerabilities) named.add(v.vulnerabilityId);
  }
  const vulnerabilities = [...named].sort().flatMap((id) => {
    const record = index.vulnerabilities.get(id);
    return record ? [record] : [];
  });
  return { verdicts, vulnerabilities };
}

/**
 * A scan's verdicts in batches of at most `size` (RecordScanAdvisories' requests), each with the vulnerabilities its
 * verdicts name: projects holds one batch at a time beside the inventory it is ingesting. The verdicts go by package
 * (ecosystem, then name), so a vulnerability of many versions of one package is named by one batch, or few.
 */
export function advisoryBatches<V extends { id: string }>(
  verdicts: readonly PackageVerdict[],
  vulnerabilities: readonly V[],
  size: number,
): { verdicts: PackageVerdict[]; vulnerabilities: V[] }[] {
  const byId = new Map(vulnerabilities.map((v) => [v.id, v]));
  const ordered = [...verdicts].sort(
    (a, b) =>
      byCodeUnits(a.package.ecosystem, b.package.ecosystem) ||
      byCodeUnits(a.package.name, b.package.name) ||
      byCodeUnits(a.package.version, b.package.version),
  );
  const batches = [];
  for (let at = 0; at < ordered.length; at += size) {
    const batch = ordered.slice(at, at + size);
    const named = new Set(batch.flatMap((v) => v.vulnerabilities.map((a) => a.vulnerabilityId)));
    batches.push({ verdicts: batch, vulnerabilities: [...named].map((id) => byId.get(id)!) });
  }
  return batches;
}

const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
