import type { DatabaseOptions } from "@sca/db";

/** The tables of the scan-orchestrator schema (none yet). */
export const entities: DatabaseOptions["entities"] = [];
