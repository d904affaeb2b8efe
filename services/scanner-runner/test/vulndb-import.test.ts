// The vulnerability database import against real PostgreSQL and a real local HTTP server serving archives.
import { createServer, type Server } from "node:http";
import { mkdtemp, readdir, readFile, rm, writeFile, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type { MikroORM } from "@mikro-orm/postgresql";
import { migrateToHead, openDatabase } from "@sca/db";
import { testServers, uniqueName } from "@sca/testkit";
import * as tar from "tar";
import yazl from "yazl";
import { entities } from "../src/store/entities.ts";
import { migrations } from "../src/store/migrations/index.ts";
import { createLogger } from "@sca/log";
import { AdvisoryDatabase, loadAdvisoryIndex, VENDORED_SNAPSHOT } from "../src/vulndb/advisory-database.ts";
import { currentStatus, importAdvisories } from "../src/vulndb/import-advisories.ts";

const schema = uniqueName("t_vulndb");
let orm: MikroORM;
let server: Server;
let base = "";
let work = "";
const served = new Map<string, Buffer>();
const signal = new AbortController().signal;

async function jsonFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true }))
    if (e.isFile() && e.name.endsWith(".json")) out.push(join(e.parentPath, e.name));
  return out;
}

function zipOf(files: Record<string, string>): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [name, text] of Object.entries(files)) zip.addBuffer(Buffer.from(text), name);
  zip.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    zip.outputStream
      .on("data", (c: Buffer) => chunks.push(c))
      .on("end", () => resolve(Buffer.concat(chunks)))
      .on("error", reject);
  });
}

beforeAll(async () => {
  orm = await openDatabase({ url: testServers().databaseUrl, schema, entities, migrations, poolMax: 4 });
  await migrateToHead(orm);
  work = await mkdtemp(join(tmpdir(), "vulndb-test-"));
  server = createServer((req, res) => {
    const body = served.get(req.url ?? "");
    if (!body) return void res.writeHead(404).end();
    res.writeHead(200, { "content-length": body.length }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const address = server.address();
  base = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
});

afterAll(async () => {
  await new Promise((r) => server.close(r));
  await orm.em.getConnection().execute(`drop schema if exists "${schema}" cascade`);
  await orm.close();
  await rm(work, { recursive: true, force: true });
});

// The first three tests import the whole vendored snapshot (5 s alone): beside a whole run's start, where every portal's
// scanner-runner imports it into the same PostgreSQL, they took up to a minute, so they have a limit of their own.
const IMPORT_LIMIT_MS = 180_000;

describe("the vulnerability database import", () => {
  it(
    "imports the vendored snapshot, every advisory read, and matches out of the box; a second import rewrites nothing",
    async () => {
      const files = await jsonFiles(VENDORED_SNAPSHOT);
      const first = await importAdvisories(orm.em.fork(), VENDORED_SNAPSHOT, { signal });
      expect(first.result).toBe("imported");
      expect(first.record.advisoryCount + first.record.skippedCount).toBe(files.length);
      expect(first.record.skippedCount).toBe(0);
      expect(first.record.addedCount).toBe(files.length);

      const { index } = { index: await loadAdvisoryIndex(orm) };
      // PYSEC-2014-8 (jinja2, fixed 2.7.2) is CVE-2014-1402 with its GHSA alias: one vulnerability.
      const at = (version: string) => index.match({ ecosystem: "PyPI", name: "Jinja2", version });
      expect(at("2.7.1")).toMatchObject({
        assessed: true,
        vulnerabilities: expect.arrayContaining([expect.objectContaining({ vulnerabilityId: "CVE-2014-1402" })]),
      });
      const fixed = at("2.7.2");
      expect(fixed.assessed && fixed.vulnerabilities.some((v) => v.vulnerabilityId === "CVE-2014-1402")).toBe(false);
      expect(index.vulnerabilities.get("CVE-2014-1402")?.aliases).toEqual(
        expect.arrayContaining(["GHSA-8r7q-cvjq-x353", "PYSEC-2014-8"]),
      );

      const again = await importAdvisories(orm.em.fork(), VENDORED_SNAPSHOT, { signal });
      expect(again.result).toBe("unchanged");
      expect(again.databaseVersion).toBe(first.databaseVersion);
      expect(again.record.unchangedCount).toBe(files.length);
      expect(again.record.addedCount + again.record.updatedCount + again.record.removedCount).toBe(0);
    },
    IMPORT_LIMIT_MS,
  );

  it(
    "imports a .tar.gz over HTTP: a changed advisory is updated, a malformed one skipped and counted, the absent removed",
    async () => {
      const dir = join(work, "tree");
      await mkdir(join(dir, "PyPI"), { recursive: true });
      const original = JSON.parse(
        await readFile(join(VENDORED_SNAPSHOT, "PyPI", "PYSEC-2014-8.json"), "utf8"),
      ) as Record<string, unknown>;
      await writeFile(
        join(dir, "PyPI", "PYSEC-2014-8.json"),
        JSON.stringify({ ...original, modified: "2025-01-01T00:00:00Z", withdrawn: "2025-01-01T00:00:00Z" }),
      );
      await writeFile(join(dir, "PyPI", "BROKEN-1.json"), '{"id": "BROKEN-1", "modified": "not a time"}');
      await writeFile(join(dir, "PyPI", "TRUNC-1.json"), '{"id": "TRU');
      const archive = join(work, "all.tar.gz");
      await tar.c({ gzip: true, file: archive, cwd: dir }, ["PyPI"]);
      served.set("/all.tar.gz", await readFile(archive));

      const before = await importAdvisories(orm.em.fork(), VENDORED_SNAPSHOT, { signal });
      const outcome = await importAdvisories(orm.em.fork(), `${base}/all.tar.gz`, { signal });
      expect(outcome.result).toBe("imported");
      expect(outcome.record).toMatchObject({
        advisoryCount: 1,
        updatedCount: 1,
        skippedCount: 2,
        withdrawnCount: 1,
        removedCount: before.record.advisoryCount - 1,
      });
      expect(outcome.record.skippedReasons).toEqual(
        expect.arrayContaining([
          'PyPI/BROKEN-1.json: "modified" is not an RFC 3339 time',
          "PyPI/TRUNC-1.json: not valid JSON",
        ]),
      );
      expect(outcome.databaseVersion).not.toBe(before.databaseVersion);
      // Withdrawn: it no longer matches.
      const index = await loadAdvisoryIndex(orm);
      expect(index.match({ ecosystem: "PyPI", name: "jinja2", version: "2.7.1" })).toEqual({
        assessed: true,
        vulnerabilities: [],
      });
    },
    IMPORT_LIMIT_MS,
  );

  it(
    "a truncated zip, a missing URL or an empty archive never replace good data",
    async () => {
      const good = await importAdvisories(orm.em.fork(), VENDORED_SNAPSHOT, { signal });
      const zip = await zipOf({
        "GHSA-zzzz.json": JSON.stringify({ id: "GHSA-zzzz", modified: "2024-01-01T00:00:00Z" }),
      });
      served.set("/truncated.zip", zip.subarray(0, zip.length - 30));
      served.set("/empty.zip", await zipOf({ "README.txt": "nothing" }));
      for (const path of ["/truncated.zip", "/missing.zip", "/empty.zip"]) {
        const outcome = await importAdvisories(orm.em.fork(), `${base}${path}`, { signal });
        expect([path, outcome.result]).toEqual([path, "failed"]);
        expect(outcome.databaseVersion).toBe(good.databaseVersion);
        expect(outcome.record.failure).toMatch(/zip|HTTP 404|no readable advisory/);
        expect(outcome.record.lastSucceededAt).toEqual(good.record.lastSucceededAt);
      }
      const whole = await zipOf({
        "a/GHSA-zzzz.json": JSON.stringify({ id: "GHSA-zzzz", modified: "2024-01-01T00:00:00Z" }),
      });
      served.set("/whole.zip", whole);
      const fromZip = await importAdvisories(orm.em.fork(), `${base}/whole.zip`, { signal });
      expect(fromZip.record).toMatchObject({ advisoryCount: 1, addedCount: 1, skippedCount: 0 });
      expect(fromZip.record.source).toBe(`${base}/whole.zip`);
    },
    IMPORT_LIMIT_MS,
  );

  it("imports at once from a changed VULNDB_REPOSITORY, not VULNDB_REFRESH_HOURS later", async () => {
    const advisory = (id: string) => JSON.stringify({ id, modified: "2024-02-01T00:00:00Z" });
    served.set("/first.zip", await zipOf({ "GHSA-1111.json": advisory("GHSA-1111") }));
    served.set("/second.zip", await zipOf({ "GHSA-2222.json": advisory("GHSA-2222") }));
    const logger = createLogger("scanner-runner-test", "ERROR");
    const databaseOf = (path: string) =>
      new AdvisoryDatabase(orm, { repository: `${base}${path}`, refreshHours: 168, logger });

    // The last test's import succeeded from whole.zip moments ago: a week is far off, yet the new source imports.
    const first = databaseOf("/first.zip");
    await first.check();
    const imported = await currentStatus(orm.em.fork());
    expect(imported).toMatchObject({ source: `${base}/first.zip`, lastResult: "imported", advisoryCount: 1 });
    expect(first.loaded?.index.vulnerabilities.has("GHSA-1111")).toBe(true);
    // The same source again is not due.
    await first.check();
    expect((await currentStatus(orm.em.fork()))?.lastAttemptAt).toEqual(imported?.lastAttemptAt);
    await first.stop();

    // Another instance (or a restart) with VULNDB_REPOSITORY changed imports from it at its first check.
    const second = databaseOf("/second.zip");
    await second.check();
    expect(await currentStatus(orm.em.fork())).toMatchObject({ source: `${base}/second.zip`, lastResult: "imported" });
    expect(second.loaded?.index.vulnerabilities.has("GHSA-2222")).toBe(true);
    expect(second.loaded?.index.vulnerabilities.has("GHSA-1111")).toBe(false);
    await second.stop();
  });
});
