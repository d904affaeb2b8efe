// bench/backup.ts's portfolio, written in a process of its own: the test kit's projects fixture `portfolio` leaves
// the process that ran it several hundred MiB larger (at 1,000,000 findings about 800 MiB of anonymous memory
// outside V8's heap, kept after the rows are gone), which would count as the services' own in the bench's process.
// Reads {schema, seed} (projects' schema, the fixture's options) as JSON on stdin, on DATABASE_URL's database;
// writes the fixture's answer as JSON on stdout.
import { text } from "node:stream/consumers";
import { openDatabase } from "@sca/db";
import { fixturesOf, type PortfolioSeed } from "@sca/testkit";

const { schema, seed } = JSON.parse(await text(process.stdin)) as { schema: string; seed: PortfolioSeed };
const orm = await openDatabase({ url: process.env.DATABASE_URL!, schema, entities: [], migrations: [], poolMax: 2 });
try {
  process.stdout.write(JSON.stringify(await (await fixturesOf("projects")).portfolio(orm, seed)));
} finally {
  await orm.close();
}
