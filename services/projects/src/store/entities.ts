import type { DatabaseOptions } from "@sca/db";

/** The tables of the projects schema (none yet). */
export const entities: DatabaseOptions["entities"] = [];
