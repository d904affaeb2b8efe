import type { DatabaseOptions } from "@sca/db";
import { CreateOutboxTable, CreateProcessedEventsTable } from "@sca/kafka";
import { Migration20261124200000_AuditLog } from "./Migration20261124200000_AuditLog.ts";
import { Migration20261124210000_TrackerCredentials } from "./Migration20261124210000_TrackerCredentials.ts";
import { Migration20261125150000_RegistryCredentials } from "./Migration20261125150000_RegistryCredentials.ts";
import { Migration20261128150000_BackupTasks } from "./Migration20261128150000_BackupTasks.ts";
import { Migration20261128160000_CrashReports } from "./Migration20261128160000_CrashReports.ts";

/** Every migration of the admin schema, oldest first. */
export const migrations: DatabaseOptions["migrations"] = [
  Migration20261124200000_AuditLog,
  // Every service's audit events feed the log, each applied once.
  CreateProcessedEventsTable,
  Migration20261124210000_TrackerCredentials,
  // Its own audit events (tracker logins changed) leave through an outbox, as every service's do.
  CreateOutboxTable,
  Migration20261125150000_RegistryCredentials,
  Migration20261128150000_BackupTasks,
  Migration20261128160000_CrashReports,
];
