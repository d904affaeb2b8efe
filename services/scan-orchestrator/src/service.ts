// The scan-orchestrator service: what it is, for main.ts to run and tests to start. It owns scans (docs/scans.md):
// creating them (asking projects for the project), their reads, admin cancel, their jobs (through the outbox to the
// lanes) and the retention sweep.
import { DirectoryArtefactStore } from "@sca/artefacts";
import { keys, serviceAddressKeys } from "@sca/config";
import { TOPICS } from "@sca/kafka";
import { defineService, SERVICES } from "@sca/runtime";
import { projectsService } from "./clients/projects.ts";
import { registerScanService } from "./rpc/scan-service.ts";
import { entities } from "./store/entities.ts";
import { migrations } from "./store/migrations/index.ts";
import { retentionKeys, retentionSettings, sweepRetention } from "./store/retention-sweep.ts";

const createKeys = {
  SCAN_MAX_CONCURRENT_PER_TEAM: keys.SCAN_MAX_CONCURRENT_PER_TEAM,
  DISK_PRESSURE_HARD_LIMIT_PERCENT: keys.DISK_PRESSURE_HARD_LIMIT_PERCENT,
  DISK_PRESSURE_MIN_FREE_BYTES: keys.DISK_PRESSURE_MIN_FREE_BYTES,
  ARTEFACT_DIR: keys.ARTEFACT_DIR,
  ARTEFACT_UPLOAD_TTL_HOURS: keys.ARTEFACT_UPLOAD_TTL_HOURS,
  PROJECTS_RPC_URL: serviceAddressKeys("projects", SERVICES.projects).PROJECTS_RPC_URL!,
};

export const service = defineService({
  name: "scan-orchestrator",
  config: { ...retentionKeys, ...createKeys },
  entities,
  migrations,
  kafka: {
    outbox: true,
    produces: [TOPICS.domainEvents, TOPICS.auditEvents, TOPICS.scanJobsManual, TOPICS.scanJobsAutomatic],
  },
  start: ({ orm, config, secretKey, kafka }) => {
    const projects = projectsService(config.PROJECTS_RPC_URL, secretKey);
    const artefacts = new DirectoryArtefactStore(config.ARTEFACT_DIR);
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
  jobs: ({ orm, config, logger, kafka }) => [
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
