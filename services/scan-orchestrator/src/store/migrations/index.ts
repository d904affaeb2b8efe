import type { DatabaseOptions } from "@sca/db";
import { CreateOutboxTable } from "@sca/kafka";
import { Migration20261124100000_Scans } from "./Migration20261124100000_Scans.ts";

/** Every migration of the scan-orchestrator schema, oldest first. */
export const migrations: DatabaseOptions["migrations"] = [
  Migration20261124100000_Scans,
  // The transactional outbox of its events (scan state changes, deletions, audit).
  CreateOutboxTable,
];
