// New data reaching existing findings without a scan (docs/vulnerability-database.md, "Re-matching after a
// refresh"), against real servers: projects and the runner on PostgreSQL and Kafka, the advisory source and the KEV
// feed served by a local HTTP server. An import adding an advisory makes a finding appear on an already scanned
// project, withdrawing it removes the finding, each change published once (FindingsChanged); an import committed
// while no runner runs is re-matched by the next one to start; a KEV refresh reaches the findings' flags.
import { createServer, type Server } from "node:http";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createLogger } from "@sca/log";
import { TOPICS } from "@sca/kafka";
import { FindingsChangedSchema } from "@sca/proto/sca/events/v1/projects_pb.ts";
import { ScanAttemptFinishedSchema } from "@sca/proto/sca/events/v1/scans_pb.ts";
import { VulnerabilityFindingService } from "@sca/proto/sca/projects/v1/vulnerability_findings_pb.ts";
import { column, openDatabase, rawQuery } from "@sca/db";
import type { ServiceInstance } from "@sca/runtime";
import {
  closeTogether,
  callAs,
  EventReader,
  startService,
  testServers,
  uniqueName,
  type TestService,
} from "@sca/testkit";
import yazl from "yazl";
import { feedSettingsOf } from "../src/feeds/feed-settings.ts";
import { refreshFeed } from "../src/feeds/feed-attempt.ts";
import { kevFeed } from "../src/feeds/kev-feed.ts";
import { rematchPendingCount } from "../src/store/pending-refreshes.ts";
import { importAdvisories } from "../src/vulndb/import-advisories.ts";
import { kevCatalog, kevCatalogWithoutFirstThree } from "./support/feed-server.ts";
import {
  artefactDirectory,
  eventually,
  makeProject,
  publishJobs,
  scanJob,
  startWorkerOn,
  upload,
} from "./support/scan-jobs.ts";

/** The first entry of the vendored KEV catalog (shared/data/kev), delisted by kevCatalogWithoutFirstThree. */
const KEV_CVE = "CVE-2025-48384";

const advisory = (id: string, cve: string, pkg: string, fixed: string, extra: Record<string, unknown> = {}) => ({
  schema_version: "1.6.0",
  id,
  modified: "2026-01-01T00:00:00Z",
  published: "2026-01-01T00:00:00Z",
  aliases: [cve],
  summary: `test advisory for ${pkg}`,
  affected: [
    {
      package: { ecosystem: "npm", name: pkg },
      ranges: [{ type: "SEMVER", events: [{ introduced: "0" }, { fixed }] }],
    },
  ],
  ...extra,
});
const LODASH = advisory("GHSA-rmt1-0000-0001", KEV_CVE, "lodash", "4.17.21");
const LEFT_PAD = advisory("GHSA-rmt1-0000-0002", "CVE-2099-71002", "left-pad", "1.3.1");
const LEFT_PAD_WITHDRAWN = { ...LEFT_PAD, modified: "2026-02-01T00:00:00Z", withdrawn: "2026-02-01T00:00:00Z" };
const MINIMIST = advisory("GHSA-rmt1-0000-0003", "CVE-2099-71003", "minimist", "1.2.6");

const SBOM = JSON.stringify({
  bomFormat: "CycloneDX",
  specVersion: "1.5",
  version: 1,
  components: [
    ["lodash", "4.17.20"],
    ["left-pad", "1.3.0"],
    ["minimist", "1.2.5"],
  ].map(([name, version]) => ({ type: "library", name, version, purl: `pkg:npm/${name}@${version}` })),
});

function zipOf(docs: object[]): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const d of docs) zip.addBuffer(Buffer.from(JSON.stringify(d)), `${(d as { id: string }).id}.json`);
  zip.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    zip.outputStream
      .on("data", (c: Buffer) => chunks.push(c))
      .on("end", () => resolve(Buffer.concat(chunks)))
      .on("error", reject);
  });
}

let server: Server;
let base = "";
const served = new Map<string, Buffer>();
let artefacts: Awaited<ReturnType<typeof artefactDirectory>>;
let identity: TestService;
let projects: TestService;
// A runner whose close() keeps its schema, so a second one can start on what the first left.
let runner: ServiceInstance;
const runnerSchema = uniqueName("scanner_runner");
const runnerEnv = (base: string): Record<string, string> => ({
  VULNDB_REPOSITORY: `${base}/osv.zip`,
  // The live KEV refresh at start fails (404): the findings start from the vendored catalog.
  KEV_FEED_URL: `${base}/kev-missing.json`,
  EPSS_REFRESH_ENABLED: "false",
  EOL_REFRESH_ENABLED: "false",
  MALICIOUS_REFRESH_ENABLED: "false",
});
const startRunner = () => startWorkerOn(runnerSchema, artefacts.dir, projects.url!, runnerEnv(base));
let domainEvents: EventReader;
let scanEvents: EventReader;
const signal = new AbortController().signal;
const logger = createLogger("refresh-propagation-test", "ERROR");

beforeAll(async () => {
  server = createServer((req, res) => {
    const body = served.get(req.url ?? "");
    if (!body) return void res.writeHead(404).end();
    res.writeHead(200, { "content-length": body.length }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const address = server.address();
  base = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  served.set("/osv.zip", await zipOf([LODASH]));
  served.set("/kev-delisted.json", kevCatalogWithoutFirstThree());
  served.set("/kev-full.json", kevCatalog());
  artefacts = await artefactDirectory();
  identity = await startService("identity", {
    env: { PASSWORD_RESET_BASE_URL: "https://portal.example.com/reset-password" },
  });
  projects = await startService("projects", { env: { IDENTITY_RPC_URL: identity.url!, ARTEFACT_DIR: artefacts.dir } });
  runner = await startRunner();
  domainEvents = await EventReader.start(projects.kafka!, TOPICS.domainEvents);
  scanEvents = await EventReader.start(runner.kafka!, TOPICS.scanEvents);
}, 120_000);

afterAll(async () => {
  await domainEvents?.stop();
  await scanEvents?.stop();
  await runner?.close(1000);
  const db = await openDatabase({ url: testServers().databaseUrl, schema: "public", entities: [], migrations: [] });
  await db.em.getConnection().execute(`drop schema if exists "${runnerSchema}" cascade`);
  await closeTogether([db, projects, identity]);
  await artefacts?.remove();
  await new Promise((r) => server.close(r));
});

async function openFindings(projectId: string) {
  const admin = await callAs.superAdmin(randomUUID());
  const page = await projects
    .client(VulnerabilityFindingService)
    .listVulnerabilityFindings({ projectId, anchor: {}, limit: 100 }, admin);
  return page.items;
}

const ids = async (projectId: string) => (await openFindings(projectId)).map((f) => f.vulnerabilityId).sort();

/** Every project this file scanned: the KEV panel counts their open known-exploited findings. */
const scannedProjects: string[] = [];

async function scanned(): Promise<string> {
  const projectId = await makeProject(identity, projects);
  scannedProjects.push(projectId);
  const job = scanJob({
    lane: "manual",
    projectId,
    sbom: await upload(artefacts.store, projectId, Buffer.from(SBOM)),
  });
  await publishJobs(runner.kafka!, "manual", [job]);
  const [finished] = await scanEvents.waitFor(ScanAttemptFinishedSchema, (e) => e.scanId === job.scanId);
  expect(finished?.outcome).toBe("succeeded");
  return projectId;
}

async function importServed(docs: object[]): Promise<void> {
  served.set("/osv.zip", await zipOf(docs));
  const outcome = await importAdvisories(runner.orm.em.fork(), `${base}/osv.zip`, { signal });
  expect(outcome.result).toBe("imported");
}

const changesOf = (projectId: string, wait = 1) =>
  domainEvents.waitFor(FindingsChangedSchema, (e) => e.projectId === projectId, wait);

describe("re-matching after an advisory refresh", () => {
  let projectId = "";

  it("makes a finding appear on a scanned project when an import adds an advisory, published once", async () => {
    projectId = await scanned();
    expect(await ids(projectId)).toEqual([KEV_CVE]);

    await importServed([LODASH, LEFT_PAD]);
    await eventually(async () => (await ids(projectId)).includes("CVE-2099-71002"), "the left-pad finding", 30_000);
    expect(await ids(projectId)).toEqual(["CVE-2099-71002", KEV_CVE].sort());
    const [added] = await changesOf(projectId);
    expect(added).toMatchObject({ addedCount: 1, removedCount: 0 });
    expect(added!.added.map((c) => [c.vulnerabilityId, c.componentName, c.componentVersion])).toEqual([
      ["CVE-2099-71002", "left-pad", "1.3.0"],
    ]);
    const finding = (await openFindings(projectId)).find((f) => f.vulnerabilityId === "CVE-2099-71002")!;
    expect(finding.detectedAt).toBeDefined();
    // The queue is worked off: nothing left to re-match.
    await eventually(async () => (await rematchPendingCount(runner.orm.em.fork())) === 0, "an empty re-match queue");
  }, 90_000);

  it("removes the finding, dated, when the advisory is withdrawn", async () => {
    await importServed([LODASH, LEFT_PAD_WITHDRAWN]);
    await eventually(
      async () => !(await ids(projectId)).includes("CVE-2099-71002"),
      "the withdrawn finding gone",
      30_000,
    );
    const removedAt = await rawQuery(
      projects.orm.em.fork(),
      `select removed_at from vulnerability_findings where project_id = ? and vulnerability_id = 'CVE-2099-71002'`,
      [projectId],
      { removedAt: column.timestamp.nullable },
    );
    expect(removedAt[0]?.removedAt).toBeInstanceOf(Date);
    const changes = await changesOf(projectId, 2);
    expect(changes[1]).toMatchObject({ addedCount: 0, removedCount: 1 });
    expect(changes[1]!.removed.map((c) => c.vulnerabilityId)).toEqual(["CVE-2099-71002"]);
  }, 90_000);

  it("resumes, on the next start, a re-match an import queued while no runner ran; each change published once", async () => {
    // The import commits (queueing minimist) while no runner runs; the next one to start re-matches it.
    const stopped = runner;
    await stopped.close(1000);
    served.set("/osv.zip", await zipOf([LODASH, LEFT_PAD_WITHDRAWN, MINIMIST]));
    const outcome = await importAdvisories(stopped.orm.em.fork(), `${base}/osv.zip`, { signal });
    expect(outcome.result).toBe("imported");
    runner = await startRunner();
    await eventually(async () => (await ids(projectId)).includes("CVE-2099-71003"), "the minimist finding", 30_000);
    // Give a duplicate time to show: the project had exactly three changes, one per import.
    await new Promise((r) => setTimeout(r, 3000));
    const changes = await changesOf(projectId, 0);
    expect(changes.map((c) => [c.addedCount, c.removedCount])).toEqual([
      [1, 0],
      [0, 1],
      [1, 0],
    ]);
    expect(changes[2]!.added.map((c) => c.vulnerabilityId)).toEqual(["CVE-2099-71003"]);
  }, 120_000);
});

/** The KEV panel's kev_flagged_total as the runner recorded it (null before the first record). */
async function kevFlaggedTotal(): Promise<number | null> {
  const [row] = await rawQuery(
    runner.orm.em.fork(),
    `select (counts->>'kev_flagged_total')::int as total from "${runnerSchema}".feed_status where feed = 'kev'`,
    [],
    { total: column.integer.nullable },
  );
  return row?.total ?? null;
}

/** Open findings on a known-exploited vulnerability over every project of this file, as the finding lists show. */
async function openKevFindings(): Promise<number> {
  let total = 0;
  for (const id of scannedProjects) total += (await openFindings(id)).filter((f) => f.knownExploited).length;
  return total;
}

describe("an enrichment refresh", () => {
  it("carries a KEV delisting to the existing findings, and the panel counts the flagged findings", async () => {
    const projectId = await scanned();
    const before = (await openFindings(projectId)).find((f) => f.vulnerabilityId === KEV_CVE)!;
    expect(before.knownExploited).toBe(true);
    const kevSettings = (url: string) =>
      feedSettingsOf({
        KEV_FEED_URL: url,
        KEV_REFRESH_ENABLED: true,
        KEV_REFRESH_TIMEOUT_SECONDS: 10,
        EPSS_FEED_URL: `${base}/epss-missing.csv.gz`,
        EPSS_REFRESH_ENABLED: false,
        EPSS_REFRESH_TIMEOUT_SECONDS: 10,
        EOL_ENABLED: true,
        EOL_SNAPSHOT_PATH: "",
        EOL_REFRESH_ENABLED: false,
        EOL_FEED_URL_TEMPLATE: `${base}/eol/{product}.json`,
        EOL_REFRESH_TIMEOUT_SECONDS: 5,
        MALICIOUS_ENABLED: true,
        MALICIOUS_REFRESH_ENABLED: false,
        MALICIOUS_SNAPSHOT_PATH: "",
        MALICIOUS_SNAPSHOT_STALE_DAYS: 60,
      });
    // The whole catalog synced: the panel counts the open findings on KEV_CVE over the scanned projects.
    expect(await refreshFeed(kevFeed, runner.orm, kevSettings(`${base}/kev-full.json`), logger, signal, true)).toBe(
      "synced",
    );
    const flagged = await openKevFindings();
    expect(flagged).toBeGreaterThanOrEqual(1);
    await eventually(async () => (await kevFlaggedTotal()) === flagged, "kev_flagged_total counting them", 30_000);
    expect(await refreshFeed(kevFeed, runner.orm, kevSettings(`${base}/kev-delisted.json`), logger, signal, true)).toBe(
      "synced",
    );
    await eventually(
      async () => (await openFindings(projectId)).find((f) => f.vulnerabilityId === KEV_CVE)?.knownExploited === false,
      "the delisted flag on the finding",
      30_000,
    );
    await eventually(async () => (await kevFlaggedTotal()) === 0, "kev_flagged_total back to 0", 30_000);
    expect(await openKevFindings()).toBe(0);
  }, 90_000);
});
