// The scan-orchestrator service: what it is, for main.ts to run and tests to start. It owns scans (docs/scans.md):
// creating them (asking projects for the project), their reads, admin cancel, their jobs (through the outbox to the
// lanes), the workers' reports and the due retries (events/scan-flow.ts), and the lease, upload and retention sweeps.
import { openArtefactStore } from "@sca/artefacts";
import { TOPICS } from "@sca/kafka";
import { defineService } from "@sca/runtime";
import { scanOrchestratorKeys, type ScanOrchestratorConfig } from "./config.ts";
import { projectsService } from "./clients/projects.ts";
import {
  laneDeadLetters,
  retryDue,
  retryHandler,
  retryTopics,
  scanEventHandler,
  scanEventsTopic,
  sweepLeases,
  type FlowSettings,
} from "./events/scan-flow.ts";
import { registerScanService } from "./rpc/scan-service.ts";
import { entities } from "./store/entities.ts";
import { migrations } from "./store/migrations/index.ts";
import { retentionSettings, sweepRetention } from "./store/retention-sweep.ts";
import { sweepUploads } from "./store/upload-sweep.ts";

/** The consumer group applying the workers' reports, and the one putting due retries back in their lanes. */
export const SCAN_EVENTS_GROUP = "scan-orchestrator.scan-events";
export const SCAN_RETRY_GROUP = "scan-orchestrator.scan-retry";

interface ScanOrchestratorSeams {
  /** How often the lease sweep runs; null: a quarter of SCAN_LEASE_SECONDS. Tests shorten it. */
  leaseSweepEveryMs: number | null;
}

const seams: ScanOrchestratorSeams = { leaseSweepEveryMs: null };

function flowSettings(
  config: Pick<
    ScanOrchestratorConfig,
    "SCAN_LEASE_SECONDS" | "SCAN_JOB_MAX_ATTEMPTS" | "SCAN_JOB_RETRY_DELAYS_SECONDS"
  >,
): FlowSettings {
  return {
    leaseSeconds: config.SCAN_LEASE_SECONDS,
    retry: { maxAttempts: config.SCAN_JOB_MAX_ATTEMPTS, delaysSeconds: config.SCAN_JOB_RETRY_DELAYS_SECONDS },
  };
}

const RETRY_TOPICS = [TOPICS.scanJobsRetry1, TOPICS.scanJobsRetry2, TOPICS.scanJobsRetry3];

export const service = defineService({
  name: "scan-orchestrator",
  config: scanOrchestratorKeys,
  seams,
  entities,
  migrations,
  kafka: {
    outbox: true,
    produces: [
      TOPICS.domainEvents,
      TOPICS.auditEvents,
      TOPICS.scanJobsManual,
      TOPICS.scanJobsAutomatic,
      ...RETRY_TOPICS,
      laneDeadLetters.manual.topic,
      laneDeadLetters.automatic.topic,
    ],
    consumes: [TOPICS.scanEvents, ...RETRY_TOPICS],
  },
  start: ({ orm, config, secretKey, kafka, logger, ...ctx }) => {
    const flow = flowSettings(config);
    kafka.consume({ groupId: SCAN_EVENTS_GROUP, topic: scanEventsTopic, handle: scanEventHandler(flow, logger) });
    // One group per tier: each waits on its own head record.
    for (const [tier, topic] of Object.entries(retryTopics))
      kafka.consume({
        groupId: `${SCAN_RETRY_GROUP}.${tier}`,
        topic,
        handle: retryHandler(logger),
        notBefore: retryDue,
      });
    const projects = projectsService(config.PROJECTS_RPC_URL, secretKey);
    const artefacts = openArtefactStore(config);
    ctx.addCloser("artefact store", () => Promise.resolve(artefacts.close()));
    const settings = {
      maxConcurrentPerTeam: config.SCAN_MAX_CONCURRENT_PER_TEAM,
      disk: {
        hardLimitPercent: config.DISK_PRESSURE_HARD_LIMIT_PERCENT,
        minFreeBytes: config.DISK_PRESSURE_MIN_FREE_BYTES,
      },
      uploadTtlHours: config.ARTEFACT_UPLOAD_TTL_HOURS,
    };
    return (router) =>
      registerScanService(router, { orm, wakeRelay: () => kafka.wakeRelay(), projects, artefacts, settings });
  },
  jobs: ({ orm, config, logger, kafka, seams }) => [
    {
      name: "scan lease sweep",
      everyMs: seams.leaseSweepEveryMs ?? (config.SCAN_LEASE_SECONDS * 1000) / 4,
      run: async (signal) => {
        const swept = await sweepLeases(orm, flowSettings(config), logger, signal);
        if (swept.republished + swept.failed > 0) {
          kafka.wakeRelay();
          logger.info(swept, "swept expired scan leases");
        }
      },
    },
    {
      name: "upload expiry sweep",
      everyMs: 600_000,
      run: async (signal) => {
        const artefacts = openArtefactStore(config);
        try {
          const swept = await sweepUploads(orm, artefacts, new Date(), signal);
          if (swept.deleted > 0) logger.info(swept, "deleted uploads no scan named");
        } finally {
          artefacts.close();
        }
      },
    },
    {
      name: "scan retention sweep",
      everyMs: 3_600_000,
      run: async (signal) => {
        const swept = await sweepRetention(orm, retentionSettings(config), new Date(), signal);
        if (swept.deleted > 0) kafka.wakeRelay();
        logger.info(swept, "swept scans past retention");
      },
    },
  ],
});
