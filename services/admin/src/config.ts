// The keys admin reads besides the runtime's: where and how the audit log is shipped (docs/audit.md); backups and
// restore and the health and disk panels (docs/operations.md): the database they dump, the artefact store they copy, where they are kept, the
// automatic schedule and its retention; the deployment's identity a backup's manifest names.
import { fileURLToPath } from "node:url";
import { isAbsolute, normalize } from "node:path";
import { artefactStoreKeys, key, keys, parse as p, serviceAddressKeys } from "@sca/config";
import { SERVICES } from "@sca/runtime/services";

export const adminKeys = {
  /** Where the audit log is shipped in batches (POST, JSON); empty: not shipped. May carry a credential: secret. */
  AUDIT_EXPORT_URL: key(p.httpUrl(""), true),
  AUDIT_EXPORT_BATCH_SIZE: key(p.int(500, { min: 1, max: 5000, clamp: true })),
  AUDIT_EXPORT_LAG_SECONDS: key(p.int(30, { min: 0, max: 3600, clamp: true })),
  DATABASE_URL: keys.DATABASE_URL,
  /** The audit log is append-only: the health panel counts the entries older than this, nothing is deleted. */
  AUDIT_LOG_RETENTION_DAYS: key(p.int(90, { min: 1, max: 36500 })),
  // The health panel probes every other service, Redis and the SMTP relay; the disk panel shows the disk limits.
  ...serviceAddressKeys("identity", SERVICES.identity),
  ...serviceAddressKeys("projects", SERVICES.projects),
  ...serviceAddressKeys("scan-orchestrator", SERVICES["scan-orchestrator"]),
  ...serviceAddressKeys("scanner-runner", SERVICES["scanner-runner"]),
  ...serviceAddressKeys("policy", SERVICES.policy),
  ...serviceAddressKeys("notifier", SERVICES.notifier),
  REDIS_URL: keys.REDIS_URL,
  SMTP_HOST: keys.SMTP_HOST,
  SMTP_PORT: keys.SMTP_PORT,
  DISK_PRESSURE_HARD_LIMIT_PERCENT: keys.DISK_PRESSURE_HARD_LIMIT_PERCENT,
  DISK_PRESSURE_MIN_FREE_BYTES: keys.DISK_PRESSURE_MIN_FREE_BYTES,
  SERVICE_VERSION: keys.SERVICE_VERSION,
  SERVICE_COMMIT: keys.SERVICE_COMMIT,
  ...artefactStoreKeys,
  /**
   * Where backups are kept, one directory each: an absolute path (a volume of its own in a cluster). Default:
   * backups/ under the data directory ($SCA_DATA_DIR, else the checkout's .data/).
   */
  BACKUP_DIR: key((raw, env) => {
    const dir =
      raw ?? `${env.SCA_DATA_DIR?.trim() || fileURLToPath(new URL("../../../.data", import.meta.url))}/backups`;
    if (!isAbsolute(dir)) throw new Error("must be an absolute path");
    return normalize(dir);
  }),
  /** Hours between automatic backups; 0: none. */
  BACKUP_AUTO_EVERY_HOURS: key(p.int(24, { min: 0, max: 24 * 30 })),
  /** Automatic backups kept; the oldest beyond it are removed after each new one. */
  BACKUP_AUTO_KEEP: key(p.int(7, { min: 1, max: 365 })),
  /** The directory of pg_dump and pg_restore; empty: the newest /usr/lib/postgresql/<major>/bin, else the PATH. */
  BACKUP_PG_BIN_DIR: key(p.text("")),
};
