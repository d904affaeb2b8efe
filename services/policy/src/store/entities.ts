import type { DatabaseOptions } from "@sca/db";
import { ApprovalRequest } from "./entities/approval.ts";
import { GatePolicy } from "./entities/gate-policy.ts";
import { GateScanFailure } from "./entities/gate-scan-failure.ts";
import { LicensePolicy } from "./entities/license-policy.ts";
import { ObligationFulfilment } from "./entities/obligation-fulfilment.ts";
import { OrganizationVerdict } from "./entities/organization-verdict.ts";

/** The tables of the policy schema. */
export const entities: DatabaseOptions["entities"] = [
  LicensePolicy,
  GatePolicy,
  ApprovalRequest,
  OrganizationVerdict,
  ObligationFulfilment,
  GateScanFailure,
];
