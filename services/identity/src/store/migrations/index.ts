import type { DatabaseOptions } from "@sca/db";
import { Migration20261122100000_AccountsAndGroups } from "./Migration20261122100000_AccountsAndGroups.ts";
import { Migration20261123100000_DirectoryAndApiKeys } from "./Migration20261123100000_DirectoryAndApiKeys.ts";
import { Migration20261123110000_SessionsAndSecondFactor } from "./Migration20261123110000_SessionsAndSecondFactor.ts";
import { Migration20261123120000_OAuthIdentities } from "./Migration20261123120000_OAuthIdentities.ts";
import { Migration20261124100000_KnownProjects } from "./Migration20261124100000_KnownProjects.ts";
import { Migration20261124130000_UserScanCount } from "./Migration20261124130000_UserScanCount.ts";
import { CreateOutboxTable, CreateProcessedEventsTable } from "@sca/kafka";

/** Every migration of the identity schema, oldest first. */
export const migrations: DatabaseOptions["migrations"] = [
  Migration20261122100000_AccountsAndGroups,
  Migration20261123100000_DirectoryAndApiKeys,
  Migration20261123110000_SessionsAndSecondFactor,
  Migration20261123120000_OAuthIdentities,
  // The transactional outbox of identity's events (accounts, audit).
  CreateOutboxTable,
  // Projects' events feed known_projects, each applied once.
  Migration20261124100000_KnownProjects,
  CreateProcessedEventsTable,
  // Scan events feed users.scan_count.
  Migration20261124130000_UserScanCount,
];
