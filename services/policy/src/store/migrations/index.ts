import type { DatabaseOptions } from "@sca/db";

/** Every migration of the policy schema, oldest first. */
export const migrations: DatabaseOptions["migrations"] = [];
