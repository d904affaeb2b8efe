export { testServers } from "./servers.ts";
export type { TestServers } from "./servers.ts";
export { uniqueName } from "./names.ts";
export { schemaDrift } from "./schema-drift.ts";
