// The scan-fed project fields through a real projects service: ScanStateChanged and ScansDeleted written onto its
// sca.domain.events with a real Kafka producer (as the scan-orchestrator's relay publishes them), duplicates and
// events out of order included; inventories ingested as the scanner-runner hands them over.
import { randomUUID } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { create, toBinary, type DescMessage, type MessageInitShape, type MessageShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code } from "@connectrpc/connect";
import { bytesSource, DirectoryArtefactStore } from "@sca/artefacts";
import { rawQuery, column } from "@sca/db";
import { EVENT_ID, EVENT_TYPE, TOPICS, uuidv7 } from "@sca/kafka";
import { ScanArtefactSchema, ScansDeletedSchema, ScanStateChangedSchema } from "@sca/proto/sca/events/v1/scans_pb.ts";
import { FileLicenseService } from "@sca/proto/sca/projects/v1/file_licenses_pb.ts";
import { InventoryService } from "@sca/proto/sca/projects/v1/inventory_pb.ts";
import type { Project } from "@sca/proto/sca/projects/v1/projects_pb.ts";
import { callAs, fixturesOf, sharedDir, type CallOptions } from "@sca/testkit";
import { DELETE_BATCH_ROWS } from "../src/store/batched-delete.ts";
import { startProjects, type ProjectsHarness, type TeamFixture } from "./support/projects-harness.ts";
import { fixtures as projectsFixtures } from "./fixtures.ts";

const SBOM = join(sharedDir(), "data", "sbom", "cyclonedx", "juice-shop-cyclonedx-npm.cdx-1.7.json");

let h: ProjectsHarness;
let dir: string;
let store: DirectoryArtefactStore;
let producer: ReturnType<NonNullable<ProjectsHarness["projects"]["kafka"]>["producer"]>;
let team: TeamFixture;
let member: CallOptions;
let juice: Uint8Array;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "sca-scan-feed-"));
  store = new DirectoryArtefactStore(dir);
  h = await startProjects({ ARTEFACT_DIR: dir });
  producer = h.projects.kafka!.producer();
  await producer.connect();
  team = await h.team();
  member = await h.as(randomUUID(), [[team, "viewer"]]);
  juice = (await fixturesOf("scanner-runner")).inventoryArtefactOf(await readFile(SBOM));
}, 60_000);

afterAll(async () => {
  await producer?.disconnect();
  await h?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function newProject(): Promise<string> {
  const slug = `p-${randomUUID().slice(0, 8)}`;
  const { project } = await h.client.createProject(
    { project: { name: `Project ${slug}`, slug, teamId: team.id } },
    await h.superAdmin(),
  );
  return project!.id;
}

/** Publishes `message` as the scan-orchestrator's relay does; answers its event id. */
async function publish<D extends DescMessage>(
  schema: D,
  message: MessageShape<D>,
  key: string,
  eventId = uuidv7(),
): Promise<string> {
  await producer.send({
    topic: h.projects.kafka!.topicName(TOPICS.domainEvents),
    acks: -1,
    messages: [
      {
        key,
        value: Buffer.from(toBinary(schema, message)),
        headers: { [EVENT_ID]: eventId, [EVENT_TYPE]: schema.typeName },
      },
    ],
  });
  return eventId;
}

interface ScanNews {
  scanId: string;
  projectId: string;
  status: string;
  previousStatus?: string;
  createdAt: Date;
  occurredAt: Date;
  release?: string;
}

function stateChanged(n: ScanNews) {
  const init: MessageInitShape<typeof ScanStateChangedSchema> = {
    scanId: n.scanId,
    projectId: n.projectId,
    teamId: team.id,
    kind: "sbom",
    status: n.status,
    previousStatus: n.previousStatus ?? "",
    attempt: 1,
    createdAt: timestampFromDate(n.createdAt),
    occurredAt: timestampFromDate(n.occurredAt),
    ...(n.release ? { release: n.release } : {}),
    ...(["succeeded", "failed", "cancelled"].includes(n.status)
      ? { completedAt: timestampFromDate(n.occurredAt) }
      : {}),
  };
  return create(ScanStateChangedSchema, init);
}

const news = (n: ScanNews, eventId?: string) => publish(ScanStateChangedSchema, stateChanged(n), n.scanId, eventId);

/** Whether the scan-feed group applied the event (its transaction committed). */
async function applied(eventId: string): Promise<boolean> {
  const rows = await rawQuery(
    h.projects.orm.em.fork(),
    "select count(*) as n from processed_events where consumer_group = ? and event_id = ?",
    [`${h.projects.kafka!.topicPrefix}projects.scan-feed`, eventId],
    { n: column.integer },
  );
  return rows[0]!.n > 0;
}

async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const appliedAll = (...ids: string[]) =>
  eventually(async () => (await Promise.all(ids.map(applied))).every(Boolean), "the events are applied");

async function project(id: string): Promise<Project> {
  return (await h.client.getProject({ projectId: id }, member)).project!;
}

async function ingest(projectId: string, scanId: string, release?: string) {
  const stored = await store.put(`inventory/${scanId}.pb`, bytesSource(juice), { maxBytes: 1024 ** 3 });
  const inventory = create(ScanArtefactSchema, {
    key: stored.key,
    sizeBytes: BigInt(stored.sizeBytes),
    sha256: stored.sha256,
  });
  return h.projects
    .client(InventoryService)
    .ingestInventory(
      { scanId, projectId, attempt: 1, inventory, ref: "", release },
      await callAs.service("scanner-runner"),
    );
}

/** One first-party license detection of the scan, as the scanner-runner's scancode stage records it. */
async function recordFileLicenses(projectId: string, scanId: string) {
  await h.projects.client(FileLicenseService).recordFileLicenses(
    {
      projectId,
      scanId,
      stage: { status: "completed", message: "scancode: 1 detection", fileCount: 1, scannedFileCount: 1 },
      detections: [{ path: "LICENSE", license: "MIT", score: 100, startLine: 1, endLine: 21, matcher: "2-aho" }],
    },
    await callAs.service("scanner-runner"),
  );
}

const at = (base: number, seconds: number) => new Date(base + seconds * 1000);

describe("scan state news", () => {
  it("counts every scan once, follows the newest scan's status, and counts labelled succeeded scans as releases", async () => {
    const projectId = await newProject();
    const before = await project(projectId);
    expect(before).toMatchObject({ scanCount: 0, releaseCount: 0, severitySummary: {}, licenseCategorySummary: {} });
    expect(before.latestScanId).toBeUndefined();

    const t0 = Date.now() - 60_000;
    const a = { scanId: uuidv7(), projectId, createdAt: at(t0, 0) };
    const created = await news({ ...a, status: "queued", occurredAt: at(t0, 0) });
    // The relay published the creation twice (same event id): applied once.
    await news({ ...a, status: "queued", occurredAt: at(t0, 0) }, created);
    const running = await news({ ...a, status: "running", previousStatus: "queued", occurredAt: at(t0, 1) });
    await appliedAll(created, running);
    let p = await project(projectId);
    expect(p).toMatchObject({ scanCount: 1, releaseCount: 0, latestScanId: a.scanId, latestScanStatus: "running" });
    expect(p.lastScanAt && Number(p.lastScanAt.seconds) * 1000).toBe(Math.floor(t0 / 1000) * 1000);

    const done = await news({
      ...a,
      status: "succeeded",
      previousStatus: "running",
      occurredAt: at(t0, 2),
      release: "1.0",
    });
    await appliedAll(done);
    p = await project(projectId);
    expect(p).toMatchObject({ scanCount: 1, releaseCount: 1, latestScanId: a.scanId, latestScanStatus: "succeeded" });

    // A second scan without a label that fails: counted, newest, no release.
    const b = { scanId: uuidv7(), projectId, createdAt: at(t0, 10) };
    const bq = await news({ ...b, status: "queued", occurredAt: at(t0, 10) });
    const bf = await news({ ...b, status: "failed", previousStatus: "queued", occurredAt: at(t0, 11) });
    await appliedAll(bq, bf);
    expect(await project(projectId)).toMatchObject({
      scanCount: 2,
      releaseCount: 1,
      latestScanId: b.scanId,
      latestScanStatus: "failed",
    });
  });

  it("keeps the newest scan (created_at, then id) whatever order the news arrives in, and ignores stale news", async () => {
    const projectId = await newProject();
    const t0 = Date.now() - 60_000;
    const newer = { scanId: uuidv7(), projectId, createdAt: at(t0, 5) };
    const older = { scanId: uuidv7(), projectId, createdAt: at(t0, 0) };
    // The newer scan's news first, then the older scan's creation and success (it lands later).
    const n1 = await news({ ...newer, status: "queued", occurredAt: at(t0, 5) });
    const o1 = await news({ ...older, status: "queued", occurredAt: at(t0, 0) });
    const o2 = await news({ ...older, status: "succeeded", occurredAt: at(t0, 20), release: "0.9" });
    await appliedAll(n1, o1, o2);
    expect(await project(projectId)).toMatchObject({
      scanCount: 2,
      releaseCount: 1,
      latestScanId: newer.scanId,
      latestScanStatus: "queued",
    });

    // A late copy of the older scan's "running" (occurred before its success) changes nothing; nor does a news of
    // the newer scan older than the one applied.
    const late1 = await news({ ...older, status: "running", occurredAt: at(t0, 3) });
    const n2 = await news({ ...newer, status: "running", occurredAt: at(t0, 8) });
    const late2 = await news({ ...newer, status: "queued", occurredAt: at(t0, 6) });
    await appliedAll(late1, n2, late2);
    expect(await project(projectId)).toMatchObject({
      scanCount: 2,
      releaseCount: 1,
      latestScanId: newer.scanId,
      latestScanStatus: "running",
    });

    // Same created_at: the larger id is the newer.
    const [x, y] = [uuidv7(), uuidv7()].sort();
    const same = at(t0, 30);
    const y1 = await news({ scanId: y!, projectId, createdAt: same, status: "queued", occurredAt: same });
    const x1 = await news({ scanId: x!, projectId, createdAt: same, status: "running", occurredAt: same });
    await appliedAll(y1, x1);
    expect(await project(projectId)).toMatchObject({ scanCount: 4, latestScanId: y, latestScanStatus: "queued" });
  });
});

describe("inventory summaries", () => {
  it("counts the newest snapshot's components by license category (uncategorized until policies run), severity none yet", async () => {
    const projectId = await newProject();
    const scanId = uuidv7();
    const { componentCount } = await ingest(projectId, scanId, "17.0");
    expect(componentCount).toBeGreaterThan(100);
    // Ingestion itself recounts, in its transaction: no event needed.
    expect(await project(projectId)).toMatchObject({
      licenseCategorySummary: { uncategorized: componentCount },
      severitySummary: {},
    });
  });
});

describe("scans deleted", () => {
  it("drops the scans' snapshots with their components and edges, recounts, and never brings a deleted scan back", async () => {
    const projectId = await newProject();
    const t0 = Date.now() - 60_000;
    const kept = { scanId: uuidv7(), projectId, createdAt: at(t0, 0) };
    const gone = { scanId: uuidv7(), projectId, createdAt: at(t0, 10) };
    await ingest(projectId, kept.scanId, "1.0");
    await ingest(projectId, gone.scanId, "2.0");
    for (const scanId of [kept.scanId, gone.scanId]) await recordFileLicenses(projectId, scanId);
    const ids = [
      await news({ ...kept, status: "succeeded", occurredAt: at(t0, 5), release: "1.0" }),
      await news({ ...gone, status: "succeeded", occurredAt: at(t0, 15), release: "2.0" }),
    ];
    await appliedAll(...ids);
    expect(await project(projectId)).toMatchObject({ scanCount: 2, releaseCount: 2, latestScanId: gone.scanId });

    // Another project's scan named in the event is left alone.
    const otherProject = await newProject();
    const foreign = uuidv7();
    await ingest(otherProject, foreign);
    await recordFileLicenses(otherProject, foreign);

    const deleted = await publish(
      ScansDeletedSchema,
      create(ScansDeletedSchema, {
        projectId,
        scanIds: [gone.scanId, foreign, randomUUID()],
        occurredAt: timestampFromDate(new Date()),
      }),
      projectId,
    );
    await appliedAll(deleted);
    const p = await project(projectId);
    expect(p).toMatchObject({
      scanCount: 1,
      releaseCount: 1,
      latestScanId: kept.scanId,
      latestScanStatus: "succeeded",
    });
    const count = async (table: string, scanId: string) =>
      (
        await rawQuery(h.projects.orm.em.fork(), `select count(*) as n from ${table} where scan_id = ?`, [scanId], {
          n: column.integer,
        })
      )[0]!.n;
    for (const table of [
      "inventory_snapshots",
      "inventory_components",
      "inventory_edges",
      "file_license_scans",
      "file_license_detections",
    ])
      expect({ table, rows: await count(table, gone.scanId) }).toEqual({ table, rows: 0 });
    // First-party license detections (docs/scancode.md) go with the scan, not another scan's or project's.
    expect(await count("file_license_detections", kept.scanId)).toBe(1);
    expect(await count("file_license_detections", foreign)).toBe(1);
    expect(await count("inventory_components", kept.scanId)).toBeGreaterThan(100);
    expect(await count("inventory_components", foreign)).toBeGreaterThan(100);
    // The summary now counts the snapshot left.
    expect(p.licenseCategorySummary.uncategorized).toBe(await count("inventory_components", kept.scanId));
    const inventory = h.projects.client(InventoryService);
    await expect(
      inventory.listComponents({ projectId, anchor: { scanId: gone.scanId } }, member),
    ).rejects.toMatchObject({
      code: Code.NotFound,
    });

    // A late news of the deleted scan changes nothing.
    const late = await news({ ...gone, status: "succeeded", occurredAt: at(t0, 99), release: "2.0" });
    await appliedAll(late);
    expect(await project(projectId)).toMatchObject({ scanCount: 1, releaseCount: 1, latestScanId: kept.scanId });
  });

  it("deletes a snapshot larger than one statement's batch", async () => {
    const projectId = await newProject();
    const scanId = uuidv7();
    // Components and edges past DELETE_BATCH_ROWS: the same SBOM's rows, copied under the scan (arranged in
    // projects' own tables, as ingestion would write them).
    await ingest(projectId, scanId);
    const em = h.projects.orm.em.fork();
    const copies = Math.ceil((DELETE_BATCH_ROWS * 1.5) / 1000);
    await projectsFixtures.write(
      h.projects.orm,
      `insert into inventory_components (id, scan_id, project_id, component_id, key, name)
       select gen_random_uuid(), scan_id, project_id, component_id, key || '#' || g, name
       from inventory_components, generate_series(1, ?) g where scan_id = ?`,
      [copies, scanId],
    );
    const [{ n } = { n: 0 }] = await rawQuery(
      em,
      "select count(*) as n from inventory_components where scan_id = ?",
      [scanId],
      { n: column.integer },
    );
    expect(n).toBeGreaterThan(DELETE_BATCH_ROWS);
    const deleted = await publish(
      ScansDeletedSchema,
      create(ScansDeletedSchema, { projectId, scanIds: [scanId], occurredAt: timestampFromDate(new Date()) }),
      projectId,
    );
    await appliedAll(deleted);
    const [left] = await rawQuery(em, "select count(*) as n from inventory_components where scan_id = ?", [scanId], {
      n: column.integer,
    });
    expect(left!.n).toBe(0);
    expect((await project(projectId)).licenseCategorySummary).toEqual({});
  });
});
