// The scan-orchestrator service: what it is, for main.ts to run and tests to start. It owns scans (docs/scans.md);
// so far it serves the reads and admin cancel and sweeps retention. Creating scans waits for the projects service.
import { TOPICS } from "@sca/kafka";
import { defineService } from "@sca/runtime";
import { registerScanService } from "./rpc/scan-service.ts";
import { entities } from "./store/entities.ts";
import { migrations } from "./store/migrations/index.ts";
import { retentionKeys, retentionSettings, sweepRetention } from "./store/retention-sweep.ts";

export const service = defineService({
  name: "scan-orchestrator",
  config: { ...retentionKeys },
  entities,
  migrations,
  kafka: { outbox: true, produces: [TOPICS.domainEvents, TOPICS.auditEvents] },
  start:
    ({ orm, kafka }) =>
    (router) =>
      registerScanService(router, { orm, wakeRelay: () => kafka.wakeRelay() }),
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
