import type { DatabaseOptions } from "@sca/db";
import { LicensePolicy } from "./entities/license-policy.ts";
import { ObligationFulfilment } from "./entities/obligation-fulfilment.ts";

/** The tables of the policy schema. */
export const entities: DatabaseOptions["entities"] = [LicensePolicy, ObligationFulfilment];
