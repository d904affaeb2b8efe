import type { DatabaseOptions } from "@sca/db";

/** The tables of the scanner-runner schema (none yet). */
export const entities: DatabaseOptions["entities"] = [];
