import type { MikroORM } from "@mikro-orm/postgresql";
import type { Logger } from "@sca/log";
import { migrateToHead } from "./database.ts";

/** `node src/main.ts migrate`: applies the service's migrations and exits (the Helm migration Job runs this). */
export async function runMigrateCommand(orm: MikroORM, logger: Logger): Promise<never> {
  try {
    const applied = await migrateToHead(orm);
    logger.info(
      { applied, schema: orm.config.get("schema") },
      applied.length ? "migrations applied" : "schema already at head",
    );
    await orm.close();
    process.exit(0);
  } catch (err) {
    logger.error({ err }, "migration failed");
    await orm.close().catch(() => undefined);
    process.exit(1);
  }
}
