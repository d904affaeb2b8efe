import type { DatabaseOptions } from "@sca/db";

/** Every migration of the projects schema, oldest first. */
export const migrations: DatabaseOptions["migrations"] = [];
