// The admin service: the audit log (every service's audit events, appended to a hash-chained, append-only table),
// its searches and CSV export, and its shipping to AUDIT_EXPORT_URL; organizations' ticket-tracker logins. main.ts runs it; tests start it through the
// test kit.
import { TOPICS } from "@sca/kafka";
import { defineService } from "@sca/runtime";
import { secretBoxKey } from "@sca/secret-box";
import { adminKeys } from "./config.ts";
import { httpAuditCollector } from "./clients/audit-collector.ts";
import { AUDIT_LOG_GROUP, auditEvents, recordAuditEvent } from "./events/audit-intake.ts";
import { shipAuditLog } from "./events/audit-export.ts";
import { registerAuditService } from "./rpc/audit-service.ts";
import { registerTrackerCredentialService } from "./rpc/tracker-credentials.ts";
import { registerRegistryCredentialService } from "./rpc/registry-credentials.ts";
import { registerRegistryLoginService } from "./rpc/registry-logins.ts";
import { entities } from "./store/entities.ts";
import { migrations } from "./store/migrations/index.ts";

export interface AdminSeams {
  /** How often the log is shipped to AUDIT_EXPORT_URL: the spec's five minutes; tests shorten it. */
  auditExportEveryMs: number;
}

const seams: AdminSeams = { auditExportEveryMs: 300_000 };

export const service = defineService({
  name: "admin",
  config: adminKeys,
  entities,
  migrations,
  // Its own audit events (tracker logins changed) go out through its outbox and come back through its consumer.
  kafka: { outbox: true, produces: [TOPICS.auditEvents], consumes: [TOPICS.auditEvents] },
  seams,
  start: ({ orm, kafka, secretKey }) => {
    kafka.consume({ groupId: AUDIT_LOG_GROUP, topic: auditEvents, handle: recordAuditEvent });
    const tokenKey = secretBoxKey(secretKey, "tracker-token", "sca-admin");
    const passwordKey = secretBoxKey(secretKey, "registry-password", "sca-admin");
    return (router) => {
      registerAuditService(router, { orm });
      registerTrackerCredentialService(router, { orm, tokenKey });
      registerRegistryCredentialService(router, { orm, passwordKey });
      registerRegistryLoginService(router, { orm, passwordKey });
    };
  },
  jobs: ({ orm, config, logger, seams }) => {
    if (!config.AUDIT_EXPORT_URL) return [];
    const collector = httpAuditCollector(config.AUDIT_EXPORT_URL);
    const settings = { batchSize: config.AUDIT_EXPORT_BATCH_SIZE, lagSeconds: config.AUDIT_EXPORT_LAG_SECONDS };
    return [
      {
        name: "audit export",
        everyMs: seams.auditExportEveryMs,
        run: async (signal) => {
          const shipped = await shipAuditLog(orm, collector, settings, signal);
          if (shipped.entries > 0) logger.info(shipped, "shipped audit entries to the collector");
        },
      },
    ];
  },
});
