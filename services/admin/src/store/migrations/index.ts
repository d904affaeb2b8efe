import type { DatabaseOptions } from "@sca/db";

/** Every migration of the admin schema, oldest first. */
export const migrations: DatabaseOptions["migrations"] = [];
