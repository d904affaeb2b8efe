import type { DatabaseOptions } from "@sca/db";

/** The tables of the notifier schema (none yet). */
export const entities: DatabaseOptions["entities"] = [];
