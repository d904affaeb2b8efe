export { openDatabase, migrateToHead, pendingMigrations } from "./database.ts";
export type { DatabaseOptions } from "./database.ts";
export { Migration } from "@mikro-orm/migrations";
export { runMigrateCommand } from "./migrate-command.ts";
export { PostgresNamingStrategy } from "./naming-strategy.ts";
export { column, rawQuery } from "./raw-query.ts";
export type { Column, Columns, RowOf } from "./raw-query.ts";
export { SNAPSHOT } from "./snapshot.ts";
export { containsPattern } from "./like-pattern.ts";
