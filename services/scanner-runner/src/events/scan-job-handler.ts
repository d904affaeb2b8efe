// Runs one scan job from a lane (docs/scanner-runner.md): checks the job is still the scan's current attempt,
// fetches the uploaded SBOM, reads it, writes the inventory artefact, has projects ingest it while matching it,
// records the findings, then looks up missing licenses (docs/license-fetch.md) and the component states, and reports
// progress, log lines and the attempt's outcome. Every stage
// boundary checks the two signals a job has: the consumer stopping (the instance shuts down: the job's transaction
// rolls back and the record goes to the partition's next owner) and the scan being over for this run (an admin
// cancel or a later attempt: the job ends quietly, recorded as applied).
import { Readable } from "node:stream";
import type { MikroORM } from "@mikro-orm/postgresql";
import type { ArtefactStore } from "@sca/artefacts";
import type { EventHandler } from "@sca/kafka";
import type { Logger } from "@sca/log";
import type { ScanJob, ScanJobSchema } from "@sca/proto/sca/events/v1/scans_pb.ts";
import type { Vulnerability } from "@sca/proto/sca/projects/v1/vulnerability_matches_pb.ts";
import type { LogLimits } from "@sca/scan-logs";
import type { InventoryIngestion } from "../clients/inventory.ts";
import type { CloneSources } from "../clients/clone-source.ts";
import type { RegistryLogins } from "../clients/registry-logins.ts";
import type { EnrichmentReader } from "../feeds/enrichment-reader.ts";
import { recordComponentStates, type ComponentStateDeps } from "./component-states-stage.ts";
import { recordFetchedLicenses, type LicenseFetchDeps } from "./license-fetch-stage.ts";
import { refineScopes, type ScopeRefinements } from "../domain/sbom/scope-refinements.ts";
import {
  fingerprintStage,
  startFingerprinting,
  type FingerprintDeps,
  type FingerprintRun,
} from "./fingerprint-stage.ts";
import { addVendoredComponents, type FingerprintFindings } from "../domain/fingerprint/known-files.ts";
import {
  cveIdsOf,
  vulnerabilityMessage,
  type CveEnrichment,
  type VulnerabilityMatches,
} from "../clients/vulnerability-matches.ts";
import { fetchUploadedSbom } from "../clients/uploaded-sbom.ts";
import { cloneRepository, type CloneLimits, type ToolLine } from "../fetch/git-clone.ts";
import type { ArchiveLimits } from "../fetch/archive-entries.ts";
import { extractSourceArchive } from "../fetch/source-archive.ts";
import { pullImageTree, type ImageLimits } from "../fetch/container-image.ts";
import { imageArchiveTree } from "../fetch/image-archive.ts";
import type { UnpackTally } from "../fetch/image-layers.ts";
import { imageRefOf } from "../domain/image-ref.ts";
import { openWorkspace } from "../sandbox/workspace.ts";
import { runCdxgen, type CdxgenOptions } from "../tools/cdxgen.ts";
import type { CdxgenPrestart, PrestartedCdxgen } from "../tools/cdxgen-prestart.ts";
import {
  recordFirstPartyLicenses,
  startTreeLicenses,
  type FirstPartyLicenseDeps,
  type TreeLicensesRun,
} from "./first-party-licenses-stage.ts";
import { inventoryArtefactStream } from "../domain/inventory-artefact.ts";
import {
  attemptFailure,
  jobStanding,
  SBOM_STAGES,
  SCANNED_KINDS,
  SOURCE_STAGES,
  type SourceStage,
  unscannedKindMessage,
  type SbomStage,
} from "../domain/scan-job.ts";
import { SBOM_MAX_BYTES } from "../domain/sbom/limits.ts";
import { readSbom } from "../domain/sbom/read-sbom.ts";
import { releaseRawData, type SbomInventory } from "../domain/sbom/inventory.ts";
import type { AdvisoryIndex } from "../domain/vulndb/matcher.ts";
import { scanVerdictsYielding, type ScanVerdicts } from "../domain/vulndb/scan-verdicts.ts";
import { knownState } from "../store/known-scan-states.ts";
import { AttemptReporter, type AttemptOutcome } from "./attempt-reporter.ts";
import type { Lane } from "./topics.ts";
import type { RunningJobs } from "./running-jobs.ts";
import { ToolLog } from "./tool-log.ts";

/** What a source scan needs: where clones come from, the sandbox's limits, cdxgen. */
export interface SourceScanDeps {
  cloneSources: CloneSources;
  clone: CloneLimits;
  archive: ArchiveLimits;
  cdxgen: Omit<CdxgenOptions, "sbomMaxBytes">;
  /** SCAN_WORK_DIR */
  workDir: string;
  /** SCAN_SANDBOX_UID */
  sandboxUid: number;
  /** Container scans: the pull and the layers' unpacking (docs/container-scans.md). */
  image: ImageLimits;
  /** Container scans: the organization's login for the image's registry. */
  registryLogins: RegistryLogins;
  /** The vendored-OSS fingerprint stage (FINGERPRINT_*, docs/fingerprint.md). */
  fingerprint: FingerprintDeps;
  /** Source scans: the scancode first-party license stage (docs/scancode.md). */
  licenses: FirstPartyLicenseDeps;
  /** Source scans: cdxgen started ahead of the next one (CDXGEN_PRESTART_ENABLED; null when off). */
  prestart: CdxgenPrestart | null;
}

export interface ScanJobDeps {
  orm: MikroORM;
  store: ArtefactStore;
  running: RunningJobs;
  wakeRelay: () => void;
  logger: Logger;
  logLimits: LogLimits;
  /** SCAN_LEASE_SECONDS: heartbeats go out every quarter of it during long stages. */
  leaseSeconds: number;
  /** JSONB_ROW_SIZE_LIMIT_BYTES: the ceiling of one component's raw_data. */
  rawDataMaxBytes: number;
  /** SCAN_SCOPE_FILTER_ENABLED */
  scopeFilter: boolean;
  /** SCAN_SCOPE_FILTER_MAVEN_ENABLED, SCAN_SCOPE_FILTER_NODE_ENABLED */
  scopeRefinements: ScopeRefinements;
  /** LICENSE_FETCH_ENABLED and its limits (docs/license-fetch.md). */
  licenseFetch: LicenseFetchDeps;
  inventory: InventoryIngestion;
  source: SourceScanDeps;
  /** The local vulnerability database's matcher at its current version (docs/vulnerability-database.md). */
  vulndb: { index(): Promise<{ version: string; index: AdvisoryIndex }> };
  matches: VulnerabilityMatches;
  /** The EPSS scores and KEV entries each matched vulnerability is sent with (docs/enrichment-feeds.md). */
  enrichment: Pick<EnrichmentReader, "epssOf" | "kevEntriesOf">;
  /** VULNDB_TIMEOUT_SECONDS: the matching stage's ceiling. */
  matchingTimeoutSeconds: number;
  /** The end-of-life, currency and malicious states recorded after matching (docs/enrichment-feeds.md). */
  states: ComponentStateDeps;
}

/** Where a scan's inventory artefact lives: one per scan, rewritten whole by a later attempt. */
export function inventoryArtefactKey(scanId: string): string {
  return `scans/${scanId}/inventory.binpb`;
}

/** The largest inventory artefact written (raw_data makes it larger than the SBOM it came from). */
const INVENTORY_ARTEFACT_MAX_BYTES = 1024 ** 3;

/** What the head of a source scan hands on: the fingerprint stage's findings, the scancode stage's pending record. */
interface HeadFindings {
  fingerprints?: FingerprintFindings | null;
  licensesRecorded?: Promise<unknown>;
}

/** The scan is over for this run (cancelled, or another attempt owns it): stop without reporting an outcome. */
class RunEnded extends Error {
  constructor() {
    super("the scan is no longer this run's");
    this.name = "RunEnded";
  }
}

export function scanJobHandler(lane: Lane, deps: ScanJobDeps): EventHandler<typeof ScanJobSchema> {
  return async (em, job, _meta, stopping) => {
    const logger = deps.logger.child({ scanId: job.scanId, attempt: job.attempt, lane });
    const run = deps.running.begin(job.scanId, job.attempt);
    const reporter = new AttemptReporter(deps, { scanId: job.scanId, attempt: job.attempt });
    const signal = AbortSignal.any([stopping, run.signal]);
    // Between stages: the instance stopping throws (rolled back, delivered again); the scan being over ends the run.
    const boundary = async () => {
      stopping.throwIfAborted();
      const heard = await knownState(em, job.scanId);
      if (run.signal.aborted || jobStanding(job.attempt, heard) !== "run") throw new RunEnded();
    };
    try {
      await boundary();
      const outcome = await runStages(job, deps, reporter, boundary, signal);
      await boundary();
      await reporter.settled(); // the outcome follows every frame of the attempt
      reporter.finish(em, outcome);
      logger.info({ outcome: outcome.outcome }, "scan job finished");
    } catch (err) {
      if (stopping.aborted) throw err;
      if (err instanceof RunEnded || run.signal.aborted) {
        logger.info({ standing: run.standing() }, "scan job stopped at a stage boundary: the scan is no longer its");
        return;
      }
      const failure = attemptFailure(err);
      if (failure.retryable) logger.error({ err }, "scan job failed; the attempt may be retried");
      await reporter.log("sbom", "stderr", [failure.message]).catch(() => undefined);
      await reporter.settled().catch(() => undefined);
      reporter.finish(em, { outcome: "failed", retryable: failure.retryable, errorMessage: failure.message });
    } finally {
      run.end();
      // The next source scan's cdxgen loads while this runner waits for it (after this outcome has gone out).
      if (job.kind === "source") deps.source.prestart?.prepareNext();
    }
  };
}

async function runStages(
  job: ScanJob,
  deps: ScanJobDeps,
  reporter: AttemptReporter,
  boundary: () => Promise<void>,
  signal: AbortSignal,
): Promise<AttemptOutcome> {
  const reach = (stage: SbomStage) => reporter.progress(SBOM_STAGES[stage].step, SBOM_STAGES[stage].percent);
  await reach("started");
  if (!SCANNED_KINDS.includes(job.kind))
    return { outcome: "failed", retryable: false, errorMessage: unscannedKindMessage(job.kind) };

  const stopHeartbeats = reporter.heartbeatEvery((deps.leaseSeconds * 1000) / 4);
  try {
    let bytes: Buffer | null;
    const found: HeadFindings = {};
    if (job.kind === "source" || job.kind === "container") {
      bytes = await buildSourceSbom(job, deps, reporter, boundary, signal, found);
    } else {
      bytes = await fetchUploadedSbom(deps.store, job.sbom, SBOM_MAX_BYTES, signal);
      await boundary();
      await reach("fetched");
      await reporter.log("sbom", "stdout", [`Fetched the uploaded SBOM: ${bytes.length} bytes, SHA-256 verified.`]);
    }

    const inventory = refineScopes(
      readSbom(bytes, { rawDataMaxBytes: deps.rawDataMaxBytes }),
      deps.scopeFilter,
      deps.scopeRefinements,
    );
    // The document is read: its bytes (tens of MB for a large SBOM) are not kept through the stages after.
    bytes = null;
    if (found.fingerprints) addVendoredComponents(inventory, found.fingerprints);
    await boundary();
    await reach("read");
    await reporter.log("sbom", "stdout", readingLines(inventory));

    // Encoded as it is written: the artefact is never whole in memory.
    const artefact = inventoryArtefactStream(inventory, { scopeFilter: deps.scopeFilter });
    const stored = await deps.store.put(inventoryArtefactKey(job.scanId), Readable.from(artefact.chunks()), {
      maxBytes: INVENTORY_ARTEFACT_MAX_BYTES,
      signal,
    });
    // The artefact holds each component's raw_data now; nothing after needs it in memory.
    releaseRawData(inventory);
    await boundary();
    await reach("stored");
    await reporter.log("ingest", "stdout", [
      `Wrote the inventory: ${artefact.componentCount} components, ${artefact.edgeCount} edges, ${stored.sizeBytes} bytes.`,
    ]);

    const ingesting = deps.inventory.ingest(
      {
        scanId: job.scanId,
        projectId: job.projectId,
        attempt: job.attempt,
        ref: job.ref,
        inventory: { key: stored.key, sizeBytes: BigInt(stored.sizeBytes), sha256: stored.sha256 },
      },
      signal,
    );
    // The verdicts need only the SBOM: matched while projects ingests (recorded only once it has).
    const matchingTimeout = AbortSignal.timeout(deps.matchingTimeoutSeconds * 1000);
    const matching = matchInventory(deps, inventory, signal, matchingTimeout);
    const [ingestion, matched] = await Promise.allSettled([ingesting, matching]);
    if (ingestion.status === "rejected") throw ingestion.reason;
    const ingested = ingestion.value;
    await boundary();
    await reach("ingested");
    await reporter.log("ingest", "stdout", [
      ingested.alreadyIngested
        ? `The scan's inventory was already stored (${ingested.componentCount} components); nothing was written again.`
        : `Stored ${ingested.componentCount} components and ${ingested.edgeCount} dependency edges.`,
    ]);

    if (matched.status === "rejected") throw matched.reason;
    await recordMatches(job, deps, reporter, matched.value, signal, matchingTimeout);
    await boundary();
    // The findings are recorded (and listed) before the registry license lookup, however long it takes.
    await recordFetchedLicenses(job, inventory, deps.licenseFetch, deps.scopeFilter, reporter, signal);
    await boundary();
    await recordComponentStates(job, deps.states, reporter, inventory, deps.scopeFilter, signal);
    await boundary();
    await found.licensesRecorded;
    await reach("matched");

    return {
      outcome: "succeeded",
      componentCount: ingested.componentCount,
      documentRelease: inventory.document.release ?? "",
    };
  } finally {
    stopHeartbeats();
  }
}

/**
 * A source or container scan's SBOM: the tree fetched into a private workspace (the uploaded archive extracted, the
 * project's repository cloned, or the image pulled and its layers unpacked), then cdxgen run over it, all in the
 * sandbox; the workspace is removed whatever happens.
 */
async function buildSourceSbom(
  job: ScanJob,
  deps: ScanJobDeps,
  reporter: AttemptReporter,
  boundary: () => Promise<void>,
  signal: AbortSignal,
  found: HeadFindings,
): Promise<Buffer> {
  const reach = (stage: SourceStage) => reporter.progress(SOURCE_STAGES[stage].step, SOURCE_STAGES[stage].percent);
  const { source } = deps;
  // A source tree's cdxgen may be waiting, loaded, in a workspace of its own: the tree is fetched into that one.
  const ahead = job.kind === "source" ? (source.prestart?.take() ?? null) : null;
  const ws = ahead?.ws ?? (await openWorkspace(source.workDir, source.sandboxUid));
  let beside: AbortController | undefined;
  let licensing: TreeLicensesRun | undefined;
  let fingerprinting: FingerprintRun | null | undefined;
  try {
    if (job.kind === "container" && job.imageArchive?.key) {
      await reach("pulling");
      const read = await imageArchiveTree(ws, deps.store, job.imageArchive, job.ref, source.image, signal);
      await reporter.log("pull", "stdout", [
        `Read the uploaded image archive (${read.format}): ${read.image}@${read.digest}, ${read.layers} layers, ` +
          `${read.downloaded} bytes.`,
        unpackedLine(read),
      ]);
    } else if (job.kind === "container") {
      await reach("pulling");
      const image = imageRefOf(job.ref);
      const login = await source.registryLogins.of(job.teamId, image.registry, signal);
      await boundary();
      await reporter.log("pull", "stdout", [
        login
          ? `Pulling with the organization's registry login for ${image.registry}.`
          : `The organization keeps no registry login for ${image.registry}; pulling anonymously.`,
      ]);
      const pulled = await pullImageTree(ws, job.ref, source.image, login, signal);
      await reporter.log("pull", "stdout", [
        `Pulled ${pulled.image}@${pulled.digest}: ${pulled.layers} layers, ${pulled.downloaded} bytes downloaded.`,
        unpackedLine(pulled),
      ]);
    } else if (job.sourceArchive?.key) {
      await reach("extracting");
      const extracted = await extractSourceArchive(deps.store, job.sourceArchive, ws, source.archive, signal);
      await reporter.log("extract", "stdout", [
        `Extracted the uploaded archive: ${extracted.entries} entries, ${extracted.bytes} bytes.`,
      ]);
    } else {
      await reach("cloning");
      const where = await source.cloneSources.of(job.projectId, signal);
      await boundary();
      const log = new ToolLog(reporter, "clone");
      try {
        await cloneRepository(ws, where, job.ref, source.clone, log.line, signal);
      } finally {
        await log.close();
      }
    }
    await boundary();
    await reach("fetched");
    // A source tree's fingerprint and scancode stages only read the tree cdxgen reads: their work runs beside
    // cdxgen's, and each stage is reported (frames, then its held log lines) after cdxgen's, as before.
    beside = new AbortController();
    const besideSignal = AbortSignal.any([signal, beside.signal]);
    const cdxgenEnded = Promise.withResolvers<void>();
    if (job.kind === "source") {
      fingerprinting = startFingerprinting(ws, source.fingerprint, besideSignal);
      licensing = startTreeLicenses(deps.orm, source.licenses, ws, reporter, besideSignal, cdxgenEnded.promise);
    }
    const log = new ToolLog(reporter, "cdxgen");
    let sbom: Buffer;
    try {
      sbom = await (ahead
        ? startedAhead(ahead, log.line, signal)
        : runCdxgen(
            ws,
            {
              ...source.cdxgen,
              sbomMaxBytes: SBOM_MAX_BYTES,
              ...(job.kind === "container" ? { projectType: "oci-dir" as const } : {}),
            },
            log.line,
            signal,
          ));
    } finally {
      cdxgenEnded.resolve();
      await log.close();
    }
    await boundary();
    await reach("built");
    await reporter.log("cdxgen", "stdout", [`cdxgen wrote a CycloneDX SBOM of ${sbom.length} bytes.`]);
    found.fingerprints = await fingerprintStage(fingerprinting ?? null, source.fingerprint, reporter, signal);
    await boundary();
    if (licensing) {
      await reach("licensing");
      // Recorded by projects while the SBOM is read and ingested; the outcome waits for it (found.licensesRecorded).
      const recording = recordFirstPartyLicenses(job, source.licenses, licensing, reporter, signal);
      recording.catch(() => undefined); // awaited, and so thrown, before the outcome
      found.licensesRecorded = recording;
      await boundary();
    }
    return sbom;
  } catch (err) {
    // cdxgen or a stage failed, or the run ended: the work begun beside cdxgen stops, its held lines dropped.
    beside?.abort();
    licensing?.log.discard();
    throw err;
  } finally {
    // That work lets go of the tree before it is removed (a cold scancode run may still be reading it); a cdxgen
    // started ahead and never released (the fetch failed) goes with it.
    await Promise.all([licensing?.done, fingerprinting?.done, ahead?.discard()]);
    await ws.remove();
  }
}

/** cdxgen started ahead of this scan, released over the fetched tree; the log says so. */
async function startedAhead(ahead: PrestartedCdxgen, line: ToolLine, signal: AbortSignal): Promise<Buffer> {
  line("stdout", "cdxgen was started ahead of this scan (its modules loaded); running it over the fetched tree.");
  return ahead.run(line, signal);
}

/** What stacking an image's layers did, for the scan's log. */
function unpackedLine(t: UnpackTally): string {
  return (
    `Unpacked ${t.entries} entries (${t.bytes} bytes), ${t.whiteouts} whiteouts applied, ` +
    `${t.skipped} entries skipped (devices, links leading out of the image, entries under a link).`
  );
}

/** A scan's verdicts at one database version, and the vulnerabilities they name as projects takes them. */
interface MatchedInventory {
  version: string;
  result: ScanVerdicts;
  /** With their EPSS and KEV data. */
  vulnerabilities: Vulnerability[];
}

/** Runs `work` under the matching stage's ceiling (`timeout`: VULNDB_TIMEOUT_SECONDS) besides the job's signal. */
async function withinMatchingTime<T>(
  deps: ScanJobDeps,
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
 * against the local database, and the EPSS and KEV data of the vulnerabilities named.
 */
async function matchInventory(
  deps: ScanJobDeps,
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
    return { version, result, vulnerabilities: result.vulnerabilities.map((v) => vulnerabilityMessage(v, enrichment)) };
  });
}

/**
 * The matching stage's second half, once the inventory is ingested: the verdicts recorded by projects
 * (RecordScanMatches, idempotent per scan and database version).
 */
async function recordMatches(
  job: ScanJob,
  deps: ScanJobDeps,
  reporter: AttemptReporter,
  { version, result, vulnerabilities }: MatchedInventory,
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
        vulnerabilities,
        verdicts: result.verdicts.map((v) => ({ package: v.package, vulnerabilities: v.vulnerabilities })),
      },
      signal,
    ),
  );
  await reporter.log("matching", "stdout", [`Recorded ${recorded.findingCount} vulnerability findings.`]);
}

/** What reading found, for the scan's log: the document, the counts, each warning. */
function readingLines(inventory: SbomInventory): string[] {
  const { document, graph } = inventory;
  return [
    `Read ${document.format} ${document.specVersion}: ${inventory.declaredComponentCount} component entries, ` +
      `${inventory.components.length} distinct components, ${graph.edgeCount} dependency edges` +
      (graph.rooted ? `, ${graph.directCount} direct, depth up to ${graph.maxDepth}.` : ", no rooted graph."),
    ...inventory.warnings.map((w) => `warning ${w.code} (${w.count}): ${w.message}`),
  ];
}
