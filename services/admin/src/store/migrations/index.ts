import type { DatabaseOptions } from "@sca/db";
import { CreateProcessedEventsTable } from "@sca/kafka";
import { Migration20261124200000_AuditLog } from "./Migration20261124200000_AuditLog.ts";

/** Every migration of the admin schema, oldest first. */
export const migrations: DatabaseOptions["migrations"] = [
  Migration20261124200000_AuditLog,
  // Every service's audit events feed the log, each applied once.
  CreateProcessedEventsTable,
];
