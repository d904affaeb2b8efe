import type { DatabaseOptions } from "@sca/db";

/** Every migration of the identity schema, oldest first. */
export const migrations: DatabaseOptions["migrations"] = [];
