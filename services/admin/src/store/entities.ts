import type { DatabaseOptions } from "@sca/db";

/** The tables of the admin schema (none yet). */
export const entities: DatabaseOptions["entities"] = [];
