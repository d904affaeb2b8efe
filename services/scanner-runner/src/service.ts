// The scanner-runner service: what it is, for main.ts to run and tests to start. It runs scan jobs from the two
// lanes, each lane with its own slots per instance, and reports on sca.scan.events through its outbox
// (docs/scanner-runner.md). It keeps the enrichment feeds (KEV, EPSS, end-of-life, malicious packages) and serves
// their status panels (docs/enrichment-feeds.md).
import { randomUUID } from "node:crypto";
import { openArtefactStore } from "@sca/artefacts";
import { TOPICS } from "@sca/kafka";
import { BOUNDED_HEAP_GROWTH, defineService, idleCollection } from "@sca/runtime";
import { scannerRunnerKeys } from "./config.ts";
import { projectsCloneSources } from "./clients/clone-source.ts";
import { projectsComponentStates } from "./clients/component-states.ts";
import { projectsFileLicenses } from "./clients/file-licenses.ts";
import { PackageRegistries } from "./clients/package-registries.ts";
import { projectsInventory } from "./clients/inventory.ts";
import { adminRegistryLogins } from "./clients/registry-logins.ts";
import { platformOf } from "./domain/image-ref.ts";
import { CloneAllowList } from "./domain/clone-target.ts";
import { projectsVulnerabilityMatches } from "./clients/vulnerability-matches.ts";
import { LateRegistryLookups } from "./events/late-registry-lookups.ts";
import { RunningJobs } from "./events/running-jobs.ts";
import { scanJobHandler } from "./events/scan-job-handler.ts";
import { scanStateNewsHandler } from "./events/scan-state-news.ts";
import { scanJobLanes, scanStateNews, type Lane } from "./events/topics.ts";
import { EnrichmentReader } from "./feeds/enrichment-reader.ts";
import { enrichmentFeedsJob } from "./feeds/feed-jobs.ts";
import { feedRefreshRequests } from "./feeds/feed-refresh-requests.ts";
import { feedSettingsOf } from "./feeds/feed-settings.ts";
import { registerAdvisoryLookupService } from "./rpc/advisory-lookups.ts";
import { registerEnrichmentFeedService } from "./rpc/enrichment-feeds.ts";
import { registerScannerToolService } from "./rpc/scanner-tools.ts";
import { entities } from "./store/entities.ts";
import { migrations } from "./store/migrations/index.ts";
import { SBOM_MAX_BYTES } from "./domain/sbom/limits.ts";
import { CdxgenPrestart } from "./tools/cdxgen-prestart.ts";
import { AdvisoryDatabase } from "./vulndb/advisory-database.ts";
import { RefreshPropagation } from "./vulndb/refresh-propagation.ts";

export interface ScannerRunnerSeams {
  /** How often the feeds are checked for a due refresh (a refresh itself is daily or weekly); tests shorten it. */
  feedCheckEveryMs: number;
}

const seams: ScannerRunnerSeams = { feedCheckEveryMs: 60_000 };
/** How long the runner is without a job before a finished large scan's garbage is collected. */
const IDLE_COLLECTION_MS = 5000;

export const service = defineService({
  name: "scanner-runner",
  config: scannerRunnerKeys,
  entities,
  migrations,
  kafka: {
    outbox: true,
    produces: [TOPICS.scanEvents],
    consumes: [TOPICS.scanJobsManual, TOPICS.scanJobsAutomatic, TOPICS.domainEvents],
  },
  seams,
  // The old generation grows to half as much again as what is live (V8's default: up to four times), by at least
  // 64 MiB, so a large scan's peak stays bounded and a small heap is not collected in a loop; V8's memory-saver
  // sizing bounded it closer, at twice the CPU of a scan (the collector running all through it: docs/benchmarks.md,
  // `findings-at-scale`). The garbage is collected once quiet (below).
  heapGrowth: BOUNDED_HEAP_GROWTH,
  start: ({ orm, config, kafka, logger, secretKey, ...ctx }) => {
    const running = new RunningJobs();
    // A large scan's garbage (about 70 MiB of heap pages at 50,000 components) would stay resident for minutes while
    // the runner waits: collected, and the pages given back, once no job has run for a few seconds.
    const memory = idleCollection(IDLE_COLLECTION_MS, () => running.size > 0);
    ctx.addCloser("idle collection", () => Promise.resolve(memory.stop()));
    // A group of its own per instance: every instance hears every scan's news, whichever runs its job.
    kafka.consume({
      groupId: `scanner-runner.scan-states.${randomUUID()}`,
      topic: scanStateNews,
      handle: scanStateNewsHandler(running, logger),
      batched: true,
    });
    // The local vulnerability database: imported when due (a fresh install from the vendored snapshot), the
    // matcher rebuilt when the stored version moves (docs/vulnerability-database.md).
    const vulndb = new AdvisoryDatabase(orm, {
      repository: config.VULNDB_REPOSITORY,
      refreshHours: config.VULNDB_REFRESH_HOURS,
      logger,
    });
    vulndb.start();
    ctx.addCloser("vulnerability database", () => vulndb.stop());
    const refreshes = feedRefreshRequests({ orm, settings: feedSettingsOf(config), vulndb, logger });
    ctx.addCloser("feed refreshes on request", () => refreshes.close());
    const store = openArtefactStore(config);
    const enrichment = new EnrichmentReader(orm, feedSettingsOf(config));
    ctx.addCloser("artefact store", () => Promise.resolve(store.close()));
    const matches = projectsVulnerabilityMatches(config.PROJECTS_RPC_URL, secretKey);
    // Advisory imports and EPSS/KEV refreshes reach the existing findings, end-of-life and malicious snapshot refreshes
    // the components' states, without a scan (and a stopped instance's
    // unfinished propagation is resumed here).
    const componentStates = projectsComponentStates(config.PROJECTS_RPC_URL, secretKey);
    // One registry client for the license lookup and the currency lookup: a document both read is asked once.
    const registries =
      config.CURRENCY_ENABLED || config.LICENSE_FETCH_ENABLED
        ? new PackageRegistries({
            bases: {
              npm: config.PACKAGE_REGISTRY_NPM_URL,
              pypi: config.PACKAGE_REGISTRY_PYPI_URL,
              crates: config.PACKAGE_REGISTRY_CRATES_URL,
              go: config.PACKAGE_REGISTRY_GO_URL,
              nuget: config.PACKAGE_REGISTRY_NUGET_URL,
              rubygems: config.PACKAGE_REGISTRY_RUBYGEMS_URL,
              maven: config.PACKAGE_REGISTRY_MAVEN_URL,
            },
            timeoutMs: config.CURRENCY_LOOKUP_TIMEOUT_SECONDS * 1000,
            concurrency: config.CURRENCY_LOOKUP_CONCURRENCY,
          })
        : null;
    const cdxgen = {
      bin: config.CDXGEN_BIN,
      timeoutMs: config.CDXGEN_TIMEOUT_SECONDS * 1000,
      memoryMb: config.SCAN_TOOL_MEMORY_MB,
      outputMaxBytes: config.SCAN_TOOL_OUTPUT_MAX_BYTES,
    };
    const prestart = config.CDXGEN_PRESTART_ENABLED
      ? new CdxgenPrestart({
          cdxgen: { ...cdxgen, sbomMaxBytes: SBOM_MAX_BYTES },
          workDir: config.SCAN_WORK_DIR,
          sandboxUid: config.SCAN_SANDBOX_UID,
          logger,
        })
      : null;
    if (prestart) ctx.addCloser("prestarted cdxgen", () => prestart.close());
    const propagation = new RefreshPropagation({ orm, vulndb, matches, enrichment, componentStates, logger });
    propagation.start();
    vulndb.onLoaded(() => {
      propagation.wake();
      memory.workEnded(); // an import's garbage
    });
    ctx.addCloser("refresh propagation", () => propagation.stop());
    const licenseFetch = {
      registries: config.LICENSE_FETCH_ENABLED ? registries : null,
      limits: {
        timeoutMs: config.LICENSE_FETCH_TIMEOUT_SECONDS * 1000,
        concurrency: config.LICENSE_FETCH_CONCURRENCY,
      },
      stageMs: config.LICENSE_FETCH_STAGE_SECONDS * 1000,
      componentStates,
    };
    const states = {
      enrichment,
      registries: config.CURRENCY_ENABLED ? registries : null,
      currencyStageMs: config.CURRENCY_LOOKUP_STAGE_SECONDS * 1000,
      componentStates,
    };
    // The registry lookups scans' outcomes did not wait for (and a stopped instance's, once their lease passed).
    const lateLookups = new LateRegistryLookups({ orm, licenseFetch, states, logger });
    lateLookups.start();
    ctx.addCloser("late registry lookups", () => lateLookups.stop());
    const deps = {
      orm,
      store,
      running,
      memory,
      wakeRelay: () => kafka.wakeRelay(),
      logger,
      logLimits: { lineMaxLen: config.SCAN_LOG_LINE_MAX_LEN, maxLines: config.SCAN_LOG_MAX_LINES_PER_SCAN },
      leaseSeconds: config.SCAN_LEASE_SECONDS,
      rawDataMaxBytes: config.JSONB_ROW_SIZE_LIMIT_BYTES,
      scopeFilter: config.SCAN_SCOPE_FILTER_ENABLED,
      scopeRefinements: {
        maven: config.SCAN_SCOPE_FILTER_MAVEN_ENABLED,
        node: config.SCAN_SCOPE_FILTER_NODE_ENABLED,
      },
      licenseFetch,
      registryWaitMs: config.REGISTRY_LOOKUP_WAIT_SECONDS * 1000,
      inventory: projectsInventory(config.PROJECTS_RPC_URL, secretKey),
      source: {
        cloneSources: projectsCloneSources(config.PROJECTS_RPC_URL, secretKey),
        clone: {
          allowList: new CloneAllowList(config.SCAN_GIT_ALLOWED_HOSTS),
          timeoutMs: config.SCAN_CLONE_TIMEOUT_SECONDS * 1000,
          maxBytes: config.SCAN_CLONE_MAX_BYTES,
          memoryMb: config.SCAN_TOOL_MEMORY_MB,
          outputMaxBytes: config.SCAN_TOOL_OUTPUT_MAX_BYTES,
        },
        archive: {
          maxBytes: config.SOURCE_ARCHIVE_MAX_BYTES,
          maxEntries: config.SOURCE_ARCHIVE_MAX_ENTRIES,
          maxExpandedBytes: config.SOURCE_ARCHIVE_MAX_EXPANDED_BYTES,
        },
        cdxgen,
        prestart,
        workDir: config.SCAN_WORK_DIR,
        sandboxUid: config.SCAN_SANDBOX_UID,
        licenses: {
          scancode: {
            bin: config.SCANCODE_BIN,
            timeoutMs: config.SCANCODE_TIMEOUT_SECONDS * 1000,
            memoryMb: config.SCAN_TOOL_MEMORY_MB,
            outputMaxBytes: config.SCAN_TOOL_OUTPUT_MAX_BYTES,
            resultMaxBytes: config.SCANCODE_MAX_RESULT_BYTES,
          },
          maxFiles: config.SCANCODE_MAX_FILES,
          maxDetections: config.SCANCODE_MAX_DETECTIONS,
          fileLicenses: projectsFileLicenses(config.PROJECTS_RPC_URL, secretKey),
        },
        registryLogins: adminRegistryLogins(
          { identity: config.IDENTITY_RPC_URL, admin: config.ADMIN_RPC_URL },
          secretKey,
        ),
        fingerprint: {
          enabled: config.FINGERPRINT_ENABLED,
          apiUrl: config.FINGERPRINT_API_URL,
          apiKey: config.FINGERPRINT_API_KEY,
          timeoutMs: config.FINGERPRINT_TIMEOUT_SECONDS * 1000,
        },
        image: {
          allowList: new CloneAllowList(config.SCAN_REGISTRY_ALLOWED_HOSTS),
          plainHttpHosts: config.SCAN_REGISTRY_PLAIN_HTTP_HOSTS,
          timeoutMs: config.SCAN_IMAGE_PULL_TIMEOUT_SECONDS * 1000,
          maxBytes: config.SCAN_IMAGE_MAX_BYTES,
          maxExpandedBytes: config.SCAN_IMAGE_MAX_EXPANDED_BYTES,
          maxEntries: config.SCAN_IMAGE_MAX_ENTRIES,
          platform: platformOf(config.SCAN_IMAGE_PLATFORM),
        },
      },
      vulndb,
      matches,
      enrichment,
      matchingTimeoutSeconds: config.VULNDB_TIMEOUT_SECONDS,
      states,
    };
    // A slot is a member of the lane's group (shared by every instance) holding one job at a time; the lanes never
    // share slots, so a flood of automatic jobs waits in its own topic while a person's job takes a manual slot.
    const slots: Record<Lane, number> = {
      manual: config.TASK_WORKER_CONCURRENCY,
      automatic: config.TASK_WORKER_AUTOMATIC_CONCURRENCY,
    };
    // The slots join together (as every consumer does): joined one after another, each join is a rebalance the
    // members already in the group learn of only at their next heartbeat (seconds per slot at start).
    for (const lane of ["manual", "automatic"] as const) {
      const handle = scanJobHandler(lane, deps);
      for (let slot = 0; slot < slots[lane]; slot++)
        kafka.consume({ groupId: `scanner-runner.${lane}`, topic: scanJobLanes[lane], handle });
    }
    return (router) => {
      registerEnrichmentFeedService(router, { orm, settings: feedSettingsOf(config), refreshes });
      registerAdvisoryLookupService(router, vulndb);
      registerScannerToolService(router, { cdxgen: config.CDXGEN_BIN, scancode: config.SCANCODE_BIN });
    };
  },
  jobs: ({ orm, config, logger, seams }) => [
    enrichmentFeedsJob(orm, feedSettingsOf(config), logger, seams.feedCheckEveryMs),
  ],
});
