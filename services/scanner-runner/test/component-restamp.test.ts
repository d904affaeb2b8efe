// Existing inventories following a refreshed end-of-life dataset or malicious snapshot without a rescan
// (docs/enrichment-feeds.md, "Re-stamping after a snapshot refresh"), against real servers: projects and the runner
// on PostgreSQL and Kafka, the end-of-life products served by a local HTTP server (the live sweep), the malicious
// snapshot an operator's directory (MALICIOUS_SNAPSHOT_PATH) that changes. A scanned project's components change
// state after each refresh, the panels count them, components becoming flagged are published once
// (MaliciousComponentsFlagged), and a refresh committed while no runner runs is re-stamped by the next one to start.
import { createServer, type Server } from "node:http";
import { randomUUID } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createLogger } from "@sca/log";
import { TOPICS } from "@sca/kafka";
import { MaliciousComponentsFlaggedSchema } from "@sca/proto/sca/events/v1/projects_pb.ts";
import { ScanAttemptFinishedSchema } from "@sca/proto/sca/events/v1/scans_pb.ts";
import { InventoryService } from "@sca/proto/sca/projects/v1/inventory_pb.ts";
import { EnrichmentFeedService } from "@sca/proto/sca/scannerrunner/v1/enrichment_feeds_pb.ts";
import { openDatabase } from "@sca/db";
import { createServiceClient } from "@sca/rpc";
import type { ServiceInstance } from "@sca/runtime";
import {
  closeTogether,
  callAs,
  EventReader,
  sharedDir,
  startService,
  testServers,
  uniqueName,
  type TestService,
} from "@sca/testkit";
import { feedSettingsOf } from "../src/feeds/feed-settings.ts";
import { eolFeed } from "../src/feeds/eol-feed.ts";
import { refreshFeed } from "../src/feeds/feed-attempt.ts";
import { maliciousFeed } from "../src/feeds/malicious-feed.ts";
import { feedStatus } from "../src/store/feed-status.ts";
import { COMPONENT_STATE_FEEDS, enrichmentUpdatesQueued } from "../src/store/pending-refreshes.ts";
import {
  artefactDirectory,
  eventually,
  makeProject,
  publishJobs,
  scanJob,
  startWorkerOn,
  upload,
} from "./support/scan-jobs.ts";

const ANGULAR = "pkg:npm/%40angular/core@12.2.0";
const LEFT_PAD = "pkg:npm/left-pad@1.3.0";
const CODEMIRROR = "pkg:npm/angular-codemirror@1.0.0";

const SBOM = JSON.stringify({
  bomFormat: "CycloneDX",
  specVersion: "1.5",
  version: 1,
  components: [
    ["@angular/core", "12.2.0", ANGULAR],
    ["left-pad", "1.3.0", LEFT_PAD],
    ["angular-codemirror", "1.0.0", CODEMIRROR],
  ].map(([name, version, purl]) => ({ type: "library", name, version, purl })),
});

const malRecord = (id: string, name: string) => ({
  schema_version: "1.5.0",
  id,
  modified: "2026-01-01T00:00:00Z",
  summary: `Malicious code in ${name} (npm)`,
  affected: [{ package: { ecosystem: "npm", name }, ranges: [{ type: "SEMVER", events: [{ introduced: "0" }] }] }],
  database_specific: { "malicious-packages-origins": [{ source: "ghsa-malware" }] },
});

let server: Server;
let base = "";
const served = new Map<string, Buffer>();
let artefacts: Awaited<ReturnType<typeof artefactDirectory>>;
let maliciousDir: string;
let identity: TestService;
let projects: TestService;
let runner: ServiceInstance;
const runnerSchema = uniqueName("scanner_runner");
const runnerEnv = (): Record<string, string> => ({
  KEV_REFRESH_ENABLED: "false",
  EPSS_REFRESH_ENABLED: "false",
  EOL_REFRESH_ENABLED: "false",
  MALICIOUS_REFRESH_ENABLED: "false",
  MALICIOUS_SNAPSHOT_PATH: maliciousDir,
});
const startRunner = () => startWorkerOn(runnerSchema, artefacts.dir, projects.url!, runnerEnv());
const settings = () =>
  feedSettingsOf({
    KEV_FEED_URL: `${base}/kev.json`,
    KEV_REFRESH_ENABLED: false,
    KEV_REFRESH_TIMEOUT_SECONDS: 10,
    EPSS_FEED_URL: `${base}/epss.csv.gz`,
    EPSS_REFRESH_ENABLED: false,
    EPSS_REFRESH_TIMEOUT_SECONDS: 10,
    EOL_ENABLED: true,
    EOL_SNAPSHOT_PATH: "",
    EOL_REFRESH_ENABLED: true,
    EOL_FEED_URL_TEMPLATE: `${base}/eol/{product}.json`,
    EOL_REFRESH_TIMEOUT_SECONDS: 5,
    MALICIOUS_ENABLED: true,
    MALICIOUS_REFRESH_ENABLED: true,
    MALICIOUS_SNAPSHOT_PATH: maliciousDir,
    MALICIOUS_SNAPSHOT_STALE_DAYS: 60,
  });
let domainEvents: EventReader;
let scanEvents: EventReader;
const signal = new AbortController().signal;
const logger = createLogger("component-restamp-test", "ERROR");

const restampDone = async () => !(await enrichmentUpdatesQueued(runner.orm.em.fork(), COMPONENT_STATE_FEEDS));

beforeAll(async () => {
  server = createServer((req, res) => {
    const body = served.get(req.url ?? "");
    if (!body) return void res.writeHead(404).end();
    res.writeHead(200, { "content-length": body.length, "content-type": "application/json" }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const address = server.address();
  base = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  maliciousDir = await mkdtemp(join(tmpdir(), "sca-malicious-"));
  await writeFile(
    join(maliciousDir, "MAL-2099-0001.json"),
    JSON.stringify(malRecord("MAL-2099-0001", "angular-codemirror")),
  );
  artefacts = await artefactDirectory();
  identity = await startService("identity", {
    env: { PASSWORD_RESET_BASE_URL: "https://portal.example.com/reset-password" },
  });
  projects = await startService("projects", { env: { IDENTITY_RPC_URL: identity.url!, ARTEFACT_DIR: artefacts.dir } });
  runner = await startRunner();
  domainEvents = await EventReader.start(projects.kafka!, TOPICS.domainEvents);
  scanEvents = await EventReader.start(runner.kafka!, TOPICS.scanEvents);
  // The snapshots loaded at the first start queue a re-stamp of the (empty) inventories: done (its counts recorded)
  // before scanning, so the scan's stage reads the loaded snapshots and no re-stamp races it.
  await eventually(
    async () =>
      (await restampDone()) &&
      (await feedStatus(runner.orm.em.fork(), "eol"))?.counts.stamped !== undefined &&
      (await feedStatus(runner.orm.em.fork(), "malicious"))?.counts.stamped !== undefined,
    "the first start's re-stamp",
    60_000,
  );
}, 120_000);

afterAll(async () => {
  await domainEvents?.stop();
  await scanEvents?.stop();
  await runner?.close(1000);
  const db = await openDatabase({ url: testServers().databaseUrl, schema: "public", entities: [], migrations: [] });
  await db.em.getConnection().execute(`drop schema if exists "${runnerSchema}" cascade`);
  await closeTogether([db, projects, identity]);
  await artefacts?.remove();
  if (maliciousDir) await rm(maliciousDir, { recursive: true, force: true });
  await new Promise((r) => server.close(r));
}, 120_000);

interface States {
  eol: string | null;
  eolDate: string | null;
  malicious: string | null;
  id: string | null;
}

async function statesOf(projectId: string): Promise<Record<string, States>> {
  const page = await projects
    .client(InventoryService)
    .listComponents({ projectId, limit: 50 }, await callAs.superAdmin(randomUUID()));
  return Object.fromEntries(
    page.items.map((c): [string, States] => [
      c.purl ?? "",
      {
        eol: c.eolState ?? null,
        eolDate: c.eolDate ?? null,
        malicious: c.maliciousState ?? null,
        id: c.maliciousId ?? null,
      },
    ]),
  );
}

const panels = async () => {
  const client = createServiceClient(EnrichmentFeedService, runner.url!);
  const admin = await callAs.superAdmin(randomUUID());
  return {
    eol: await client.getEndOfLifeDatasetStatus({}, admin),
    malicious: await client.getMaliciousSnapshotStatus({}, admin),
  };
};

const flagEvents = (projectId: string, count: number) =>
  domainEvents.waitFor(MaliciousComponentsFlaggedSchema, (e) => e.projectId === projectId, count);

describe("re-stamping after a snapshot refresh", () => {
  let projectId = "";

  it("flags a scanned project's component when the malicious snapshot gains its record, published once", async () => {
    projectId = await makeProject(identity, projects);
    const job = scanJob({
      lane: "manual",
      projectId,
      sbom: await upload(artefacts.store, projectId, Buffer.from(SBOM)),
    });
    await publishJobs(runner.kafka!, "manual", [job]);
    const [finished] = await scanEvents.waitFor(ScanAttemptFinishedSchema, (e) => e.scanId === job.scanId, 1, 90_000);
    expect(finished?.outcome).toBe("succeeded");
    const scanned = await statesOf(projectId);
    expect(scanned[ANGULAR]).toMatchObject({ eol: "eol", eolDate: "2022-11-12", malicious: "clear" });
    expect(scanned[LEFT_PAD]).toMatchObject({ eol: null, malicious: "clear" });
    expect(scanned[CODEMIRROR]).toMatchObject({ malicious: "flagged", id: "MAL-2099-0001" });
    const [atScan] = await flagEvents(projectId, 1);
    expect([atScan!.cause, atScan!.components.map((c) => c.purl)]).toEqual(["scan", [CODEMIRROR]]);

    // The operator's checkout gains left-pad's record; the weekly rebuild (forced here) reads it.
    await writeFile(join(maliciousDir, "MAL-2099-0002.json"), JSON.stringify(malRecord("MAL-2099-0002", "left-pad")));
    expect(await refreshFeed(maliciousFeed, runner.orm, settings(), logger, signal, true)).toBe("synced");
    await eventually(
      async () => (await statesOf(projectId))[LEFT_PAD]?.malicious === "flagged",
      "left-pad flagged",
      30_000,
    );
    expect((await statesOf(projectId))[LEFT_PAD]).toMatchObject({
      eol: null,
      malicious: "flagged",
      id: "MAL-2099-0002",
    });
    // Only the malicious columns were re-stamped: the end-of-life state is as the scan left it.
    expect((await statesOf(projectId))[ANGULAR]).toMatchObject({ eol: "eol", malicious: "clear" });
    await eventually(restampDone, "the re-stamp forgotten");
    const { malicious } = await panels();
    expect([malicious.stamped, malicious.flaggedTotal, malicious.newlyFlagged]).toEqual([3n, 2n, 1n]);
    const [, atRefresh] = await flagEvents(projectId, 2);
    expect(atRefresh).toMatchObject({ cause: "snapshot_refresh", flaggedCount: 1 });
    expect(atRefresh!.components.map((c) => [c.purl, c.maliciousId, c.maliciousSource])).toEqual([
      [LEFT_PAD, "MAL-2099-0002", "ghsa-malware"],
    ]);

    // Rebuilt again unchanged: the re-stamp changes nothing and publishes nothing more.
    expect(await refreshFeed(maliciousFeed, runner.orm, settings(), logger, signal, true)).toBe("synced");
    await eventually(restampDone, "the second re-stamp forgotten", 30_000);
    await new Promise((r) => setTimeout(r, 2000));
    expect(
      domainEvents.seen.filter((r) => r.type === MaliciousComponentsFlaggedSchema.typeName && r.key === projectId),
    ).toHaveLength(2);
    expect((await panels()).malicious).toMatchObject({ stamped: 3n, flaggedTotal: 2n, newlyFlagged: 0n });
  }, 150_000);

  it("re-stamps on the next start an end-of-life refresh committed while no runner ran", async () => {
    // The live sweep serves angular with cycle 12 supported until 2099; every other product answers 404 (kept).
    const angular = JSON.parse(await readFile(join(sharedDir(), "data", "eol", "angular.json"), "utf8")) as {
      releases: { releaseCycle: string; eol: string | boolean }[];
    };
    for (const r of angular.releases) if (r.releaseCycle === "12") r.eol = "2099-01-01";
    served.set("/eol/angular.json", Buffer.from(JSON.stringify(angular)));
    const stopped = runner;
    await stopped.close(1000);
    expect(await refreshFeed(eolFeed, stopped.orm, settings(), logger, signal, true)).toBe("synced");
    expect((await statesOf(projectId))[ANGULAR]?.eol).toBe("eol");

    runner = await startRunner();
    await eventually(
      async () => (await statesOf(projectId))[ANGULAR]?.eol === "supported",
      "angular 12 supported",
      30_000,
    );
    expect((await statesOf(projectId))[ANGULAR]).toMatchObject({
      eol: "supported",
      eolDate: "2099-01-01",
      malicious: "clear",
    });
    await eventually(restampDone, "the re-stamp forgotten");
    const { eol } = await panels();
    expect([eol.stamped, eol.eolFlaggedTotal, eol.cleared]).toEqual([1n, 0n, 1n]);
  }, 150_000);

  it("re-stamps at the daily end-of-life check with the live sweep off, so passing dates reach the inventories", async () => {
    expect((await panels()).eol.cleared).toBe(1n);
    const off = { ...settings(), eol: { ...settings().eol, refreshEnabled: false } };
    expect(await refreshFeed(eolFeed, runner.orm, off, logger, signal, true)).toBe("skipped");
    // The pass finds nothing to move today: its counts replace the last pass's.
    await eventually(async () => (await panels()).eol.cleared === 0n, "the daily pass recorded", 30_000);
    const { eol } = await panels();
    expect([eol.stamped, eol.eolFlaggedTotal, eol.run?.lastResult]).toEqual([1n, 0n, "skipped"]);
  }, 60_000);
});
