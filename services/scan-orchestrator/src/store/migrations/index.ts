import type { DatabaseOptions } from "@sca/db";
import { CreateOutboxTable, CreateProcessedEventsTable } from "@sca/kafka";
import { Migration20261124100000_Scans } from "./Migration20261124100000_Scans.ts";
import { Migration20261124180000_UploadSweepIndexes } from "./Migration20261124180000_UploadSweepIndexes.ts";
import { Migration20261125210000_ImageArchives } from "./Migration20261125210000_ImageArchives.ts";
import { Migration20261128150000_PendingLicenses } from "./Migration20261128150000_PendingLicenses.ts";
import { Migration20261128180000_WebhookDeliveries } from "./Migration20261128180000_WebhookDeliveries.ts";

/** Every migration of the scan-orchestrator schema, oldest first. */
export const migrations: DatabaseOptions["migrations"] = [
  Migration20261124100000_Scans,
  // The transactional outbox of its events (scan state changes, deletions, audit).
  CreateOutboxTable,
  // The event ids its consumers applied (the workers' reports, the due retries).
  CreateProcessedEventsTable,
  Migration20261124180000_UploadSweepIndexes,
  Migration20261125210000_ImageArchives,
  Migration20261128150000_PendingLicenses,
  // Repository-webhook deliveries that started scans (docs/scm.md).
  Migration20261128180000_WebhookDeliveries,
];
