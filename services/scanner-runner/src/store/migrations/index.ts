import type { DatabaseOptions } from "@sca/db";

/** Every migration of the scanner-runner schema, oldest first. */
export const migrations: DatabaseOptions["migrations"] = [];
