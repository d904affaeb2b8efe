import type { DatabaseOptions } from "@sca/db";
import { CreateOutboxTable, CreateProcessedEventsTable } from "@sca/kafka";
import { Migration20261124110000_KnownScanStates } from "./Migration20261124110000_KnownScanStates.ts";
import { Migration20261124133000_VulnerabilityDatabase } from "./Migration20261124133000_VulnerabilityDatabase.ts";
import { Migration20261124210000_EnrichmentFeeds } from "./Migration20261124210000_EnrichmentFeeds.ts";
import { Migration20261125130000_PendingRefreshes } from "./Migration20261125130000_PendingRefreshes.ts";
import { Migration20261126100000_ScancodeFileResults } from "./Migration20261126100000_ScancodeFileResults.ts";
import { Migration20261128150000_LateRegistryLookups } from "./Migration20261128150000_LateRegistryLookups.ts";

/** Every migration of the scanner-runner schema, oldest first. */
export const migrations: DatabaseOptions["migrations"] = [
  // The scan events (progress, log lines, outcomes) leave through the outbox.
  CreateOutboxTable,
  // The job and scan-state events each consumer group applied.
  CreateProcessedEventsTable,
  Migration20261124110000_KnownScanStates,
  Migration20261124133000_VulnerabilityDatabase,
  Migration20261124210000_EnrichmentFeeds,
  Migration20261125130000_PendingRefreshes,
  Migration20261126100000_ScancodeFileResults,
  Migration20261128150000_LateRegistryLookups,
];
