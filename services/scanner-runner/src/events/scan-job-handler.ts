// Runs one scan job from a lane (docs/scanner-runner.md): checks the job is still the scan's current attempt,
// fetches the uploaded SBOM, reads it, writes the inventory artefact, has projects ingest it while matching it,
// records the findings, then looks up missing licenses (docs/license-fetch.md) and the component states, and reports
// progress, log lines and the attempt's outcome (a source or container scan's SBOM: source-sbom-stage.ts; matching:
// matching-stage.ts). The outcome waits for the registries at most REGISTRY_LOOKUP_WAIT_SECONDS: what they have not
// answered by then is queued with it for late-registry-lookups.ts. Every stage boundary checks the two signals a job
// has: the consumer stopping (the instance shuts down: the job's transaction rolls back and the record goes to the
// partition's next owner) and the scan being over for this run (an admin cancel or a later attempt: the job ends
// quietly, recorded as applied).
import { Readable } from "node:stream";
import type { StoredArtefact } from "@sca/artefacts";
import type { EventHandler } from "@sca/kafka";
import type { Logger } from "@sca/log";
import { LARGE_WORK_ITEMS, type IdleCollection } from "@sca/runtime";
import type { ScanJob, ScanJobSchema } from "@sca/proto/sca/events/v1/scans_pb.ts";
import type { LogLimits } from "@sca/scan-logs";
import type { InventoryIngestion } from "../clients/inventory.ts";
import { fetchUploadedSbom } from "../clients/uploaded-sbom.ts";
import { addVendoredComponents } from "../domain/fingerprint/known-files.ts";
import { inventoryArtefactStream } from "../domain/inventory-artefact.ts";
import {
  attemptFailure,
  jobStanding,
  SBOM_STAGES,
  SCANNED_KINDS,
  unscannedKindMessage,
  type SbomStage,
} from "../domain/scan-job.ts";
import { goToolchainComponents } from "../domain/sbom/go-toolchain.ts";
import { addComponents, releaseRawData, type SbomInventory } from "../domain/sbom/inventory.ts";
import { SBOM_MAX_BYTES } from "../domain/sbom/limits.ts";
import { readSbom } from "../domain/sbom/read-sbom.ts";
import { refineScopes, type ScopeRefinements } from "../domain/sbom/scope-refinements.ts";
import { PACKAGE_JSON_MAX_BYTES, packageJsonArtefactKey } from "../fetch/root-package-json.ts";
import { knownState } from "../store/known-scan-states.ts";
import { queueLateLookup, type LateLookup } from "../store/late-registry-lookups.ts";
import { AttemptReporter, type AttemptOutcome } from "./attempt-reporter.ts";
import { recordComponentStates, type ComponentStateDeps } from "./component-states-stage.ts";
import { recordFetchedLicenses, type LicenseFetchDeps } from "./license-fetch-stage.ts";
import { matchInventory, recordMatches, type MatchingDeps } from "./matching-stage.ts";
import type { RunningJobs } from "./running-jobs.ts";
import { buildSourceSbom, type HeadFindings, type SourceSbomDeps } from "./source-sbom-stage.ts";
import type { Lane } from "./topics.ts";

export interface ScanJobDeps extends SourceSbomDeps, MatchingDeps {
  running: RunningJobs;
  /** Told as a large scan's job ends: its garbage is collected once the runner is quiet (its idle memory). */
  memory: IdleCollection;
  wakeRelay: () => void;
  logger: Logger;
  logLimits: LogLimits;
  /** SCAN_LEASE_SECONDS: heartbeats go out every quarter of it during long stages. */
  leaseSeconds: number;
  /** JSONB_ROW_SIZE_LIMIT_BYTES: the ceiling of one component's raw_data. */
  rawDataMaxBytes: number;
  /** SCAN_SCOPE_FILTER_MAVEN_ENABLED, SCAN_SCOPE_FILTER_NODE_ENABLED */
  scopeRefinements: ScopeRefinements;
  /** LICENSE_FETCH_ENABLED and its limits (docs/license-fetch.md). */
  licenseFetch: LicenseFetchDeps;
  /** REGISTRY_LOOKUP_WAIT_SECONDS, in ms: how long the outcome waits for the registries. */
  registryWaitMs: number;
  inventory: InventoryIngestion;
  /** The end-of-life, currency and malicious states recorded after matching (docs/enrichment-feeds.md). */
  states: ComponentStateDeps;
}

/** Where a scan's inventory artefact lives: one per scan, rewritten whole by a later attempt. */
export function inventoryArtefactKey(scanId: string): string {
  return `scans/${scanId}/inventory.binpb`;
}

/** A stored artefact as a message names it. */
function artefactRef(stored: StoredArtefact) {
  return { key: stored.key, sizeBytes: BigInt(stored.sizeBytes), sha256: stored.sha256 };
}

/** The largest inventory artefact written (raw_data makes it larger than the SBOM it came from). */
const INVENTORY_ARTEFACT_MAX_BYTES = 1024 ** 3;

/** Pending purls named in the outcome (and on the scan); the count is whole. */
const PENDING_PURLS_NAMED = 100;

/** What the stages end with: the outcome, and the registry lookups it did not wait for. */
interface StagesEnd {
  outcome: AttemptOutcome;
  late?: LateLookup;
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
    const read = { components: 0 };
    // Between stages: the instance stopping throws (rolled back, delivered again); the scan being over ends the run.
    const boundary = async () => {
      stopping.throwIfAborted();
      const heard = await knownState(em, job.scanId);
      if (run.signal.aborted || jobStanding(job.attempt, heard) !== "run") throw new RunEnded();
    };
    try {
      await boundary();
      const { outcome, late } = await runStages(job, deps, reporter, boundary, signal, read);
      await boundary();
      await reporter.settled(); // the outcome follows every frame of the attempt
      // Queued with the outcome: both commit, or the job runs again.
      if (late) await queueLateLookup(em, late);
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
      if (read.components >= LARGE_WORK_ITEMS) deps.memory.workEnded();
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
  read: { components: number },
): Promise<StagesEnd> {
  const reach = (stage: SbomStage) => reporter.progress(SBOM_STAGES[stage].step, SBOM_STAGES[stage].percent);
  await reach("started");
  if (!SCANNED_KINDS.includes(job.kind))
    return { outcome: { outcome: "failed", retryable: false, errorMessage: unscannedKindMessage(job.kind) } };

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
    read.components = inventory.components.length;
    if (found.fingerprints) addVendoredComponents(inventory, found.fingerprints);
    if (found.goToolchains) addComponents(inventory, goToolchainComponents(found.goToolchains));
    await boundary();
    await reach("read");
    await reporter.log("sbom", "stdout", readingLines(inventory));

    // Encoded as it is written: the artefact is never whole in memory.
    const artefact = inventoryArtefactStream(inventory, { scopeFilter: deps.scopeFilter });
    const stored = await deps.store.put(inventoryArtefactKey(job.scanId), Readable.from(artefact.chunks()), {
      maxBytes: INVENTORY_ARTEFACT_MAX_BYTES,
      signal,
    });
    // Beside it, the tree's root package.json (the npm remediation dry-run's manifest, docs/scm.md).
    const packageJson = found.packageJson
      ? await deps.store.put(packageJsonArtefactKey(job.scanId), Readable.from([found.packageJson]), {
          maxBytes: PACKAGE_JSON_MAX_BYTES,
          signal,
        })
      : null;
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
        inventory: artefactRef(stored),
        ...(packageJson ? { packageJson: artefactRef(packageJson) } : {}),
      },
      signal,
    );
    if (read.components >= LARGE_WORK_ITEMS) {
      // The read's and the artefact's garbage collected before matching allocates on top of it, once the ingestion's
      // request has gone out (a turn of the event loop): while projects ingests, off the scan's critical path.
      ingesting.catch(() => undefined); // settled below; not unhandled meanwhile
      await new Promise((resolve) => setImmediate(resolve));
      deps.memory.collectNow();
    }
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
    // The findings are recorded (and listed) before the registry lookups, and the outcome waits for those at most
    // REGISTRY_LOOKUP_WAIT_SECONDS in all: what has not answered by then is looked up after it.
    const outcomeDue = AbortSignal.timeout(deps.registryWaitMs);
    const licenses = await recordFetchedLicenses(
      job,
      inventory,
      deps.licenseFetch,
      deps.scopeFilter,
      reporter,
      signal,
      outcomeDue,
    );
    await boundary();
    const states = await recordComponentStates(
      job,
      deps.states,
      reporter,
      inventory,
      deps.scopeFilter,
      signal,
      outcomeDue,
    );
    await boundary();
    await found.licensesRecorded;
    await reach("matched");

    const pendingLicensePurls = [...licenses.pendingPurls].sort();
    return {
      outcome: {
        outcome: "succeeded",
        componentCount: ingested.componentCount,
        documentRelease: inventory.document.release ?? "",
        pendingLicenseCount: pendingLicensePurls.length,
        pendingLicensePurls: pendingLicensePurls.slice(0, PENDING_PURLS_NAMED),
      },
      late:
        pendingLicensePurls.length + states.pendingPurls.length > 0
          ? {
              scanId: job.scanId,
              projectId: job.projectId,
              attempt: job.attempt,
              licensePurls: pendingLicensePurls,
              currencyPurls: states.pendingPurls,
            }
          : undefined,
    };
  } finally {
    stopHeartbeats();
  }
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
