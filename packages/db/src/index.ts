export { openDatabase, migrateToHead, pendingMigrations } from "./database.ts";
export type { DatabaseOptions } from "./database.ts";
export { Migration } from "@mikro-orm/migrations";
export { runMigrateCommand } from "./migrate-command.ts";
