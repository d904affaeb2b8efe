import type { DatabaseOptions } from "@sca/db";
import { CreateOutboxTable, CreateProcessedEventsTable } from "@sca/kafka";
import { Migration20261124140000_LicensePolicies } from "./Migration20261124140000_LicensePolicies.ts";
import { Migration20261124150000_LicenseExceptionExpiries } from "./Migration20261124150000_LicenseExceptionExpiries.ts";
import { Migration20261125100000_GatePolicies } from "./Migration20261125100000_GatePolicies.ts";
import { Migration20261125120000_Approvals } from "./Migration20261125120000_Approvals.ts";
import { Migration20261125110000_ObligationFulfilments } from "./Migration20261125110000_ObligationFulfilments.ts";
import { Migration20261125180000_GateScanFailures } from "./Migration20261125180000_GateScanFailures.ts";
import { Migration20261128160000_GateFailuresCleared } from "./Migration20261128160000_GateFailuresCleared.ts";

/** Every migration of the policy schema, oldest first. */
export const migrations: DatabaseOptions["migrations"] = [
  Migration20261124140000_LicensePolicies,
  // The transactional outbox of policy's events (audit, license policy changes).
  CreateOutboxTable,
  Migration20261124150000_LicenseExceptionExpiries,
  Migration20261125100000_GatePolicies,
  Migration20261125120000_Approvals,
  // The events policy applied once (ProjectUpdated, for the project names on approval requests).
  CreateProcessedEventsTable,
  Migration20261125110000_ObligationFulfilments,
  Migration20261125180000_GateScanFailures,
  Migration20261128160000_GateFailuresCleared,
];
