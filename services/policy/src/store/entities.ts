import type { DatabaseOptions } from "@sca/db";

/** The tables of the policy schema (none yet). */
export const entities: DatabaseOptions["entities"] = [];
