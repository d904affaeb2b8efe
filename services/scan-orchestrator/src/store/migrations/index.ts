import type { DatabaseOptions } from "@sca/db";

/** Every migration of the scan-orchestrator schema, oldest first. */
export const migrations: DatabaseOptions["migrations"] = [];
