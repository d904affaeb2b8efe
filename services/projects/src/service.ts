// The projects service: projects of teams and their component inventory. main.ts runs it; tests start it through
// the test kit.
import { openArtefactStore } from "@sca/artefacts";
import { TOPICS } from "@sca/kafka";
import { BOUNDED_HEAP_GROWTH, defineService, idleCollection } from "@sca/runtime";
import { createRedis, PROJECT_WRITE_FENCES, writeFences } from "@sca/redis";
import { secretBoxKey } from "@sca/secret-box";
import { projectsKeys } from "./config.ts";
import { runnerAdvisoryDatabase } from "./clients/advisory-database.ts";
import { identityDirectory } from "./clients/directory.ts";
import { sourceHost } from "./clients/source-host.ts";
import { policyLicenseCategories } from "./clients/license-categories.ts";
import {
  LICENSE_POLICY_FEED_GROUP,
  licensePolicyFeedHandler,
  licensePolicyNews,
} from "./events/license-policy-feed.ts";
import { GATE_POLICY_FEED_GROUP, gatePolicyFeedHandler, gatePolicyNews } from "./events/gate-policy-feed.ts";
import { SBOM_SIGNING_GROUP, sbomSigningHandler, signingNews } from "./events/sbom-signing.ts";
import { SCAN_FEED_GROUP, scanFeedHandler, scanNews } from "./events/scan-feed.ts";
import {
  callsForComment,
  PULL_REQUEST_COMMENT_GROUP,
  pullRequestCommentHandler,
  scanStateNews,
} from "./events/pull-request-comments.ts";
import { policyGateResults } from "./clients/gate-results.ts";
import { recordDailyMetrics } from "./events/daily-metrics.ts";
import { sweepVulnerabilitySla } from "./events/sla-sweep.ts";
import { reconcileCreatingRemediations } from "./events/remediation-reconciliation.ts";
import { registerComponentStateService } from "./rpc/component-states.ts";
import { registerFindingService } from "./rpc/finding-service.ts";
import { registerGateFactsService } from "./rpc/gate-facts.ts";
import { registerGovernanceFactsService } from "./rpc/governance-facts.ts";
import { registerMaliciousWaiverService } from "./rpc/malicious-waivers.ts";
import { registerInventoryService } from "./rpc/inventory-service.ts";
import { registerPortfolioService } from "./rpc/portfolio.ts";
import { registerFileLicenseService } from "./rpc/file-licenses.ts";
import { registerLicenseInventoryService } from "./rpc/license-inventory.ts";
import { registerProjectAssigneeService } from "./rpc/project-assignees.ts";
import { registerProjectService } from "./rpc/project-service.ts";
import { registerProjectWebhookService } from "./rpc/project-webhooks.ts";
import { registerRemediationService } from "./rpc/remediation.ts";
import { registerSourceHostAppService } from "./rpc/source-host-apps.ts";
import { registerPullRequestCommentService } from "./rpc/pull-request-comments.ts";
import { registerSbomExportService } from "./rpc/sbom-export.ts";
import { registerSbomSigningService } from "./rpc/sbom-signing.ts";
import { signingPasswordBoxKey, signsScans } from "./signing/sbom-signer.ts";
import { registerVulnerabilityMatchService } from "./rpc/vulnerability-matches.ts";
import { componentPageCache } from "./store/component-pages.ts";
import { keptFindingReads } from "./store/findings/finding-orders.ts";
import { entities } from "./store/entities.ts";
import { fenceProjectWrites } from "./store/write-fences.ts";
import { migrations } from "./store/migrations/index.ts";

export interface ProjectsSeams {
  /** How often the vulnerability-SLA sweep runs: daily. */
  slaSweepEveryMs: number;
  /**
   * How often the dashboards' daily job runs: hourly, so the first run of each UTC day writes its rows (idempotent
   * per day) and a restart never skips a day.
   */
  dailyMetricsEveryMs: number;
  /** How often remediation records left `creating` by a crash are reconciled with the host (also at start-up). */
  remediationReconcileEveryMs: number;
}

/** How long projects is without a large call before its garbage is collected (as the scanner-runner). */
const IDLE_COLLECTION_MS = 5000;

export const service = defineService({
  name: "projects",
  seams: {
    slaSweepEveryMs: 86_400_000,
    dailyMetricsEveryMs: 3_600_000,
    remediationReconcileEveryMs: 600_000,
  } satisfies ProjectsSeams,
  config: projectsKeys,
  entities,
  migrations,
  kafka: { outbox: true, produces: [TOPICS.domainEvents, TOPICS.auditEvents], consumes: [TOPICS.domainEvents] },
  // As the scanner-runner: the old generation grows to half as much again as what is live (V8's default: up to four
  // times), by at least 64 MiB (less had a small heap collected twice a second under list reads), and a large
  // ingestion's or scan's garbage is collected once projects is quiet (docs/benchmarks.md, `findings-at-scale`).
  heapGrowth: BOUNDED_HEAP_GROWTH,
  start: ({ orm, secretKey, config, kafka, logger, ...ctx }) => {
    // First, before any transaction: the commits that change a project's component pages fence it (ADR 12).
    const redis = createRedis(config.REDIS_URL, logger);
    ctx.addCloser("redis", () => redis.quit());
    const fences = writeFences(redis, PROJECT_WRITE_FENCES);
    fenceProjectWrites(orm, fences, logger);
    // A migration may have changed rows without fences: no page kept before a new schema head counts.
    fences
      .raiseAll(`schema ${migrations.at(-1)!.name}`)
      .catch((err: unknown) => logger.warn({ err }, "could not raise the write fences' generation"));
    const gate = policyGateResults(config.POLICY_RPC_URL, secretKey);
    const licenseCategories = policyLicenseCategories(config.POLICY_RPC_URL, secretKey);
    kafka.consume({ groupId: SCAN_FEED_GROUP, topic: scanNews, handle: scanFeedHandler(logger, gate), batched: true });
    kafka.consume({
      groupId: LICENSE_POLICY_FEED_GROUP,
      topic: licensePolicyNews,
      handle: licensePolicyFeedHandler(licenseCategories, logger),
    });
    kafka.consume({
      groupId: GATE_POLICY_FEED_GROUP,
      topic: gatePolicyNews,
      handle: gatePolicyFeedHandler(logger),
    });
    const sbomIdentity = { author: config.SBOM_AUTHOR || null, toolVersion: config.SERVICE_VERSION };
    const signing = {
      keyless: config.SIGNING_KEYLESS,
      keyPath: config.SIGNING_KEY_PATH,
      sealedPassword: config.SIGNING_KEY_PASSWORD_ENCRYPTED,
      passwordBoxKey: signingPasswordBoxKey(secretKey),
      caUrl: config.SIGNING_CA_URL,
      oidcIssuer: config.SIGNING_OIDC_ISSUER,
      oidcTokenPath: config.SIGNING_OIDC_TOKEN_PATH,
    };
    // Nothing is sent to a transparency log (docs/signing.md, "Keyless"): say so rather than seem to log.
    if (config.SIGNING_KEYLESS && config.SIGNING_LOG_URL)
      logger.warn("SIGNING_LOG_URL is set but keyless signatures are not logged to a transparency log; it is not used");
    const artefacts = openArtefactStore(config);
    ctx.addCloser("artefact store", () => Promise.resolve(artefacts.close()));
    // A large ingestion's or scan's garbage (hundreds of MiB of heap at 50,000 components) would stay resident while
    // projects waits: collected, and the pages given back, once no such call has run for a few seconds.
    const memory = idleCollection(IDLE_COLLECTION_MS);
    ctx.addCloser("idle collection", () => Promise.resolve(memory.stop()));
    kafka.consume({
      groupId: SBOM_SIGNING_GROUP,
      topic: signingNews,
      handle: sbomSigningHandler({
        settings: signing,
        identity: sbomIdentity,
        artefacts,
        baseUrl: `https://${config.DOMAIN}`,
        builderId: config.SLSA_BUILDER_ID,
        memory,
        logger,
      }),
    });
    const directory = identityDirectory(config.IDENTITY_RPC_URL, secretKey);
    const credentialKey = secretBoxKey(secretKey, "git-credential", "sca-projects");
    const appSecretKey = secretBoxKey(secretKey, "scm-app-secret", "sca-projects");
    const host = sourceHost(config.SCM_API_URL, config.SCM_HTTP_TIMEOUT_MS);
    if (config.SCM_PR_COMMENT_AUTOMATIC)
      kafka.consume({
        groupId: PULL_REQUEST_COMMENT_GROUP,
        topic: scanStateNews,
        handle: pullRequestCommentHandler({
          appSecretKey,
          host,
          gate,
          logger,
        }),
        acts: callsForComment,
      });
    return (router) => {
      registerProjectService(router, { orm, directory, credentialKey, wakeRelay: () => kafka.wakeRelay() });
      registerProjectAssigneeService(router, { orm, directory });
      registerSourceHostAppService(router, { orm, appSecretKey, wakeRelay: () => kafka.wakeRelay() });
      registerRemediationService(router, {
        orm,
        appSecretKey,
        host,
        serviceName: config.REMEDIATION_SERVICE_NAME,
        artefacts,
      });
      registerPullRequestCommentService(router, { orm, appSecretKey, host });
      registerProjectWebhookService(router, {
        orm,
        webhookSecretKey: secretBoxKey(secretKey, "webhook-secret", "sca-projects"),
        wakeRelay: () => kafka.wakeRelay(),
      });
      const inventory = {
        orm,
        artefacts,
        rawDataMaxBytes: config.JSONB_ROW_SIZE_LIMIT_BYTES,
        credentialKey,
        componentPages: componentPageCache(config.COMPONENT_PAGE_CACHE_MB * 1024 * 1024),
        signingCopy: signsScans(signing) ? { artefacts, identity: sbomIdentity, logger } : null,
        licenseCategories,
        logger,
        memory,
      };
      registerInventoryService(router, inventory);
      registerSbomExportService(router, { ...inventory, sbomIdentity });
      registerSbomSigningService(router, { orm });
      registerLicenseInventoryService(router, inventory);
      registerFileLicenseService(router, { orm });
      const wakeRelay = () => kafka.wakeRelay();
      const findingReads = keptFindingReads(config.FINDING_READ_CACHE_MB * 1024 * 1024);
      registerVulnerabilityMatchService(router, { orm, wakeRelay, logger, memory });
      registerComponentStateService(router, { orm, wakeRelay, memory });
      registerFindingService(router, {
        orm,
        findingReads,
        wakeRelay,
        logger,
        advisoryDatabase: config.EXTERNAL_PACKAGE_LOOKUP_ENABLED
          ? runnerAdvisoryDatabase(config.SCANNER_RUNNER_RPC_URL, secretKey)
          : null,
      });
      registerGateFactsService(router, { orm, findingReads });
      registerGovernanceFactsService(router, { orm, findingReads });
      registerPortfolioService(router, { orm, directory });
      registerMaliciousWaiverService(router, { orm, maxDays: config.MALICIOUS_WAIVE_MAX_DAYS, wakeRelay });
    };
  },
  jobs: ({ orm, config, kafka, logger, seams, secretKey }) => {
    const gate = policyGateResults(config.POLICY_RPC_URL, secretKey);
    const dailyMetrics = {
      name: "dashboards' daily metrics",
      everyMs: seams.dailyMetricsEveryMs,
      run: async (signal: AbortSignal) => {
        const done = await recordDailyMetrics(orm, gate, new Date(), signal);
        if (done.recounted + done.written > 0) logger.info(done, "dashboards' daily metrics recorded");
      },
    };
    const hostDeps = {
      appSecretKey: secretBoxKey(secretKey, "scm-app-secret", "sca-projects"),
      host: sourceHost(config.SCM_API_URL, config.SCM_HTTP_TIMEOUT_MS),
    };
    const remediationReconciliation = {
      name: "remediation records left creating",
      everyMs: seams.remediationReconcileEveryMs,
      run: async (signal: AbortSignal) => {
        const done = await reconcileCreatingRemediations(orm, hostDeps, new Date(), signal);
        if (done.opened + done.failed + done.left > 0)
          logger.info(done, "remediation records left creating reconciled");
      },
    };
    if (!config.VULN_SLA_ALERTS_ENABLED) return [dailyMetrics, remediationReconciliation];
    const windows = {
      critical: config.VULN_SLA_DAYS_CRITICAL,
      high: config.VULN_SLA_DAYS_HIGH,
      medium: config.VULN_SLA_DAYS_MEDIUM,
      low: config.VULN_SLA_DAYS_LOW,
    };
    return [
      dailyMetrics,
      remediationReconciliation,
      {
        name: "vulnerability SLA sweep",
        everyMs: seams.slaSweepEveryMs,
        run: async (signal) => {
          const marked = await sweepVulnerabilitySla(orm, windows, new Date(), signal);
          if (marked > 0) {
            kafka.wakeRelay();
            logger.info({ marked }, "marked findings past their remediation window");
          }
        },
      },
    ];
  },
});
