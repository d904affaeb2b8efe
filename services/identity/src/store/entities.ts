import type { DatabaseOptions } from "@sca/db";

/** The tables of the identity schema (none yet). */
export const entities: DatabaseOptions["entities"] = [];
