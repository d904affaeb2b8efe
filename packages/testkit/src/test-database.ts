// A short-lived connection to the tests' database outside any service's schema, for what the test kit does around
// services (dropping a schema, a run's templates, looking a schema up): opened, used, closed.
import type { MikroORM } from "@mikro-orm/postgresql";
import { openDatabase } from "@sca/db";
import { testServers } from "./servers.ts";

export async function withTestDatabase<T>(work: (db: MikroORM) => Promise<T>, poolMax = 1): Promise<T> {
  const db = await openDatabase({
    url: testServers().databaseUrl,
    schema: "public",
    entities: [],
    migrations: [],
    poolMax,
  });
  try {
    return await work(db);
  } finally {
    await db.close();
  }
}
