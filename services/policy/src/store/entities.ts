import type { DatabaseOptions } from "@sca/db";
import { GatePolicy } from "./entities/gate-policy.ts";
import { LicensePolicy } from "./entities/license-policy.ts";

/** The tables of the policy schema. */
export const entities: DatabaseOptions["entities"] = [LicensePolicy, GatePolicy];
