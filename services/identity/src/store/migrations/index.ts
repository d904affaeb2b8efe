import type { DatabaseOptions } from "@sca/db";
import { Migration20261122100000_AccountsAndGroups } from "./Migration20261122100000_AccountsAndGroups.ts";
import { Migration20261123100000_DirectoryAndApiKeys } from "./Migration20261123100000_DirectoryAndApiKeys.ts";

/** Every migration of the identity schema, oldest first. */
export const migrations: DatabaseOptions["migrations"] = [
  Migration20261122100000_AccountsAndGroups,
  Migration20261123100000_DirectoryAndApiKeys,
];
