import type { DatabaseOptions } from "@sca/db";

/** Every migration of the notifier schema, oldest first. */
export const migrations: DatabaseOptions["migrations"] = [];
