// The matching stage (docs/vulnerability-database.md): the SBOM's distinct package versions matched against the
// local database while projects ingests the inventory, then the verdicts recorded by projects once it has; both
// halves under VULNDB_TIMEOUT_SECONDS besides the job's own signal.
import type { ScanJob } from "@sca/proto/sca/events/v1/scans_pb.ts";
import {
  cveIdsOf,
  vulnerabilityMessage,
  type CveEnrichment,
  type VulnerabilityMatches,
} from "../clients/vulnerability-matches.ts";
import type { SbomInventory } from "../domain/sbom/inventory.ts";
import type { AdvisoryIndex } from "../domain/vulndb/matcher.ts";
import { advisoryBatches, scanVerdictsYielding, type ScanVerdicts } from "../domain/vulndb/scan-verdicts.ts";
import type { EnrichmentReader } from "../feeds/enrichment-reader.ts";
import type { AttemptReporter } from "./attempt-reporter.ts";

export interface MatchingDeps {
  /** SCAN_SCOPE_FILTER_ENABLED: excluded components are not matched. */
  scopeFilter: boolean;
  /** The local vulnerability database's matcher at its current version (docs/vulnerability-database.md). */
  vulndb: { index(): Promise<{ version: string; index: AdvisoryIndex }> };
  matches: VulnerabilityMatches;
  /** The EPSS scores and KEV entries each matched vulnerability is sent with (docs/enrichment-feeds.md). */
  enrichment: Pick<EnrichmentReader, "epssOf" | "kevEntriesOf">;
  /** VULNDB_TIMEOUT_SECONDS: the matching stage's ceiling. */
  matchingTimeoutSeconds: number;
}

/**
 * Verdicts per RecordScanAdvisories call: what projects decodes and holds at once while it still ingests the scan's
 * inventory (a 50,000-component scan's advisories in one call took its peak to 496 MiB, 512 being the target).
 */
const ADVISORY_BATCH = 10_000;

/** A scan's verdicts at one database version, their vulnerabilities recorded by projects (RecordScanAdvisories). */
export interface MatchedInventory {
  version: string;
  result: ScanVerdicts;
}

/** Runs `work` under the matching stage's ceiling (`timeout`: VULNDB_TIMEOUT_SECONDS) besides the job's signal. */
async function withinMatchingTime<T>(
  deps: MatchingDeps,
  jobSignal: AbortSignal,
  timeout: AbortSignal,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  try {
    return await work(AbortSignal.any([jobSignal, timeout]));
  } catch (err) {
    jobSignal.throwIfAborted();
    if (timeout.aborted)
      throw new Error(
        `vulnerability matching took longer than VULNDB_TIMEOUT_SECONDS (${deps.matchingTimeoutSeconds} s)`,
        { cause: err },
      );
    throw err;
  }
}

/**
 * The matching stage's first half, which needs only the SBOM: the components' distinct package versions matched
 * against the local database, the EPSS and KEV data of the vulnerabilities named, and those vulnerabilities and the
 * verdicts recorded by projects (RecordScanAdvisories: they belong to no project, so they are written while projects
 * still ingests the inventory, by the PostgreSQL core that ingestion leaves idle until its COPY).
 */
export async function matchInventory(
  deps: MatchingDeps,
  inventory: SbomInventory,
  jobSignal: AbortSignal,
  timeout: AbortSignal,
): Promise<MatchedInventory> {
  return withinMatchingTime(deps, jobSignal, timeout, async (signal) => {
    const { version, index } = await deps.vulndb.index();
    const components = deps.scopeFilter
      ? inventory.components.filter((c) => c.scope !== "excluded")
      : inventory.components;
    const result = await scanVerdictsYielding(
      index,
      components.map((c) => c.purl),
    );
    signal.throwIfAborted();
    const cves = result.vulnerabilities.flatMap(cveIdsOf);
    const enrichment: CveEnrichment = {
      epss: await deps.enrichment.epssOf(cves),
      kev: await deps.enrichment.kevEntriesOf(cves),
    };
    const vulnerabilities = result.vulnerabilities.map((v) => vulnerabilityMessage(v, enrichment));
    for (const batch of advisoryBatches(result.verdicts, vulnerabilities, ADVISORY_BATCH))
      await deps.matches.recordScanAdvisories(
        {
          databaseVersion: version,
          vulnerabilities: batch.vulnerabilities,
          verdicts: batch.verdicts.map((v) => ({ package: v.package, vulnerabilities: v.vulnerabilities })),
        },
        signal,
      );
    return { version, result };
  });
}

/**
 * The matching stage's second half, once the inventory is ingested: the scan's findings recorded by projects from
 * the verdicts (RecordScanMatches, idempotent per scan and database version).
 */
export async function recordMatches(
  job: ScanJob,
  deps: MatchingDeps,
  reporter: AttemptReporter,
  { version, result }: MatchedInventory,
  jobSignal: AbortSignal,
  timeout: AbortSignal,
): Promise<void> {
  const affected = result.verdicts.filter((v) => v.vulnerabilities.length > 0).length;
  const lines = [
    `Matched ${result.verdicts.length} distinct package versions against the vulnerability database (version ${version}): ` +
      `${affected} affected, ${result.vulnerabilities.length} vulnerabilities.`,
  ];
  if (result.unknownEcosystems.size > 0)
    lines.push(
      `Not assessed (ecosystem unknown to the matcher): ${[...result.unknownEcosystems].map(([t, n]) => `${t} ${n}`).join(", ")}.`,
    );
  if (result.unnamed > 0) lines.push(`Not assessed (no purl with a version): ${result.unnamed} components.`);
  await reporter.log("matching", "stdout", lines);
  const recorded = await withinMatchingTime(deps, jobSignal, timeout, (signal) =>
    deps.matches.recordScanMatches(
      {
        projectId: job.projectId,
        scanId: job.scanId,
        databaseVersion: version,
        verdicts: result.verdicts.map((v) => ({ package: v.package, vulnerabilities: v.vulnerabilities })),
        advisoriesRecorded: true,
      },
      signal,
    ),
  );
  await reporter.log("matching", "stdout", [`Recorded ${recorded.findingCount} vulnerability findings.`]);
}
