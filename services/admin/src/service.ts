// The admin service: the audit log (every service's audit events, appended to a hash-chained, append-only table),
// its searches and CSV export, and its shipping to AUDIT_EXPORT_URL; organizations' ticket-tracker logins; backups
// and restore, the health and disk panels, the web UI's crash reports (docs/operations.md). main.ts runs it; tests start it through the test kit.
import { openArtefactStore } from "@sca/artefacts";
import { TOPICS } from "@sca/kafka";
import { defineService, SERVICES, startPeriodicJob, type ServiceName } from "@sca/runtime";
import { secretBoxKey } from "@sca/secret-box";
import { adminKeys } from "./config.ts";
import { httpAuditCollector } from "./clients/audit-collector.ts";
import { AUDIT_LOG_GROUP, auditEvents, recordAuditEvent } from "./events/audit-intake.ts";
import { shipAuditLog } from "./events/audit-export.ts";
import { registerAuditService } from "./rpc/audit-service.ts";
import { registerTrackerCredentialService } from "./rpc/tracker-credentials.ts";
import { registerRegistryCredentialService } from "./rpc/registry-credentials.ts";
import { registerRegistryLoginService } from "./rpc/registry-logins.ts";
import { serviceAddressKey } from "@sca/config";
import { createRedis, PROJECT_WRITE_FENCES, writeFences } from "@sca/redis";
import {
  artefactStoreProbe,
  databaseProbe,
  kafkaProbe,
  redisProbe,
  serviceProbe,
  smtpProbe,
} from "./clients/health-probes.ts";
import { scannerToolProbes } from "./clients/scanner-tools.ts";
import { pgBinDir, pgTools } from "./clients/pg-tools.ts";
import { registerStatusPanelService, type StatusPanelDeps } from "./rpc/status-panels.ts";
import { registerCrashReportService } from "./rpc/crash-reports.ts";
import { enqueueBackup, registerBackupService } from "./rpc/backup-service.ts";
import { BackupDirectory } from "./store/backup-directory.ts";
import { failUnfinishedTasks } from "./store/backup-tasks.ts";
import { entities } from "./store/entities.ts";
import { newestAutomatic } from "./domain/backup-name.ts";
import type { BackupDeps } from "./tasks/backup-deps.ts";
import { TaskRunner } from "./tasks/task-runner.ts";
import { migrations } from "./store/migrations/index.ts";

export interface AdminSeams {
  /** How often the log is shipped to AUDIT_EXPORT_URL: the spec's five minutes; tests shorten it. */
  auditExportEveryMs: number;
  /**
   * Each service's schema, which a backup dumps and a restore replays: in a deployment the services' names (dashes
   * as underscores); a test's services each have a schema of their own.
   */
  schemas: Partial<Record<ServiceName, string>>;
}

const seams: AdminSeams = {
  auditExportEveryMs: 300_000,
  schemas: Object.fromEntries(Object.keys(SERVICES).map((name) => [name, name.replaceAll("-", "_")])),
};

/** Who takes automatic backups, as the audit log records it: nobody. */
const SCHEDULE = { userId: "", email: "", ip: "", userAgent: "backup schedule" };

/** How often the schedule looks whether an automatic backup is due. */
const AUTO_BACKUP_CHECK_MS = 600_000;

export const service = defineService({
  name: "admin",
  config: adminKeys,
  entities,
  migrations,
  // Its own audit events (tracker logins changed) go out through its outbox and come back through its consumer.
  kafka: { outbox: true, produces: [TOPICS.auditEvents], consumes: [TOPICS.auditEvents] },
  seams,
  start: async (ctx) => {
    const { orm, kafka, secretKey, config, seams, logger } = ctx;
    kafka.consume({ groupId: AUDIT_LOG_GROUP, topic: auditEvents, handle: recordAuditEvent });
    const store = openArtefactStore(config);
    const redis = createRedis(config.REDIS_URL, logger);
    ctx.addCloser("redis", () => redis.quit());
    const deps: BackupDeps = {
      orm,
      fences: writeFences(redis, PROJECT_WRITE_FENCES),
      store,
      directory: new BackupDirectory(config.BACKUP_DIR),
      pg: pgTools(config.DATABASE_URL, pgBinDir(config.BACKUP_PG_BIN_DIR)),
      schemas: { ...seams.schemas, admin: orm.config.get("schema") },
      adminSchema: orm.config.get("schema"),
      portal: { version: config.SERVICE_VERSION, commit: config.SERVICE_COMMIT },
      autoKeep: config.BACKUP_AUTO_KEEP,
      logger,
    };
    // A task a stopped process was running will not go on (one admin replica runs backups: docs/operations.md).
    await failUnfinishedTasks(orm.em.fork(), "interrupted: the admin service stopped while it ran");
    const runner = new TaskRunner(orm, logger);
    ctx.addCloser("backup tasks", async () => {
      await runner.close();
      store.close();
    });
    const everyMs = config.BACKUP_AUTO_EVERY_HOURS * 3_600_000;
    if (everyMs > 0) {
      const startedAt = Date.now();
      const schedule = startPeriodicJob(
        {
          name: "automatic backup",
          everyMs: Math.min(AUTO_BACKUP_CHECK_MS, everyMs),
          run: async () => {
            // Due one period after the newest automatic backup, or after start-up when there is none yet.
            const since = newestAutomatic((await deps.directory.list()).map((b) => b.manifest.name))?.getTime();
            if (Date.now() - (since ?? startedAt) >= everyMs) await enqueueBackup(deps, runner, "automatic", SCHEDULE);
          },
        },
        logger,
      );
      ctx.addCloser("automatic backup", () => schedule.stop());
    }
    const others = ["identity", "projects", "scan-orchestrator", "scanner-runner", "policy", "notifier"] as const;
    const panels: StatusPanelDeps = {
      orm,
      redis,
      store,
      storeLocation: config.ARTEFACT_BACKEND === "s3" ? `s3://${config.ARTEFACT_S3_BUCKET}` : config.ARTEFACT_DIR,
      directory: deps.directory,
      scannerSchema: deps.schemas["scanner-runner"] ?? "scanner_runner",
      probes: [
        ...others.map((name) => serviceProbe(name, config[serviceAddressKey(name)])),
        databaseProbe(orm),
        kafkaProbe(kafka.client),
        redisProbe(redis),
        artefactStoreProbe(store),
        ...scannerToolProbes(config.SCANNER_RUNNER_RPC_URL, secretKey),
        ...(config.SMTP_HOST ? [smtpProbe(config.SMTP_HOST, config.SMTP_PORT)] : []),
      ],
      notConfigured: config.SMTP_HOST ? [] : [{ name: "smtp", kind: "mail" }],
      auditRetentionDays: config.AUDIT_LOG_RETENTION_DAYS,
      limits: {
        hardLimitPercent: config.DISK_PRESSURE_HARD_LIMIT_PERCENT,
        minFreeBytes: config.DISK_PRESSURE_MIN_FREE_BYTES,
      },
    };
    const tokenKey = secretBoxKey(secretKey, "tracker-token", "sca-admin");
    const passwordKey = secretBoxKey(secretKey, "registry-password", "sca-admin");
    return (router) => {
      registerAuditService(router, { orm });
      registerTrackerCredentialService(router, { orm, tokenKey });
      registerRegistryCredentialService(router, { orm, passwordKey });
      registerRegistryLoginService(router, { orm, passwordKey });
      registerBackupService(router, deps, runner);
      registerStatusPanelService(router, panels);
      registerCrashReportService(router, { orm, logger });
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
