import type { DatabaseOptions } from "@sca/db";
import { AuditEntry } from "./entities/audit-entry.ts";
import { AuditExportPosition } from "./entities/audit-export-position.ts";
import { TrackerCredential } from "./entities/tracker-credential.ts";
import { RegistryCredential } from "./entities/registry-credential.ts";
import { BackupTask } from "./entities/backup-task.ts";
import { CrashReport } from "./entities/crash-report.ts";

/** The tables of the admin schema. */
export const entities: DatabaseOptions["entities"] = [
  AuditEntry,
  AuditExportPosition,
  TrackerCredential,
  RegistryCredential,
  BackupTask,
  CrashReport,
];
