// InventoryService through the real servers: ingestion of every real SBOM (as the scanner-runner writes its
// inventory artefact, through the test kit), idempotency, all-or-nothing, the list's rules, detail, export, authz.
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { sizeDelimitedDecodeStream, sizeDelimitedEncode } from "@bufbuild/protobuf/wire";
import { Code, type Client } from "@connectrpc/connect";
import { bytesSource, DirectoryArtefactStore } from "@sca/artefacts";
import { ScanArtefactSchema, type ScanArtefact } from "@sca/proto/sca/events/v1/scans_pb.ts";
import {
  InventoryRecordSchema,
  InventoryService,
  type Component,
  type InventoryComponentSchema,
  type ExportComponentsRequestSchema,
  type ListComponentsRequestSchema,
} from "@sca/proto/sca/projects/v1/inventory_pb.ts";
import { callAs, fixturesOf, sharedDir, type CallOptions, type ServiceFixtures } from "@sca/testkit";
import { startProjects, type ProjectsHarness, type TeamFixture } from "./support/projects-harness.ts";
import { fixtures as projectsFixtures } from "./fixtures.ts";

const SBOM_DIR = join(sharedDir(), "data", "sbom");
const RAW_LIMIT = 4096;

let h: ProjectsHarness;
let dir: string;
let store: DirectoryArtefactStore;
let inventory: Client<typeof InventoryService>;
let runner: CallOptions;
let team: TeamFixture;
let member: CallOptions;
let outsider: CallOptions;
let scannerRunner: ServiceFixtures["scanner-runner"];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "sca-inventory-"));
  store = new DirectoryArtefactStore(dir);
  h = await startProjects({ ARTEFACT_DIR: dir, JSONB_ROW_SIZE_LIMIT_BYTES: String(RAW_LIMIT) });
  inventory = h.projects.client(InventoryService);
  runner = await callAs.service("scanner-runner");
  team = await h.team();
  const other = await h.team();
  member = await h.as(randomUUID(), [[team, "viewer"]]);
  outsider = await h.as(randomUUID(), [[other, "team_admin"]]);
  scannerRunner = await fixturesOf("scanner-runner");
}, 60_000);

afterAll(async () => {
  await h?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function newProject(): Promise<string> {
  const slug = `p-${randomUUID().slice(0, 8)}`;
  const admin = await h.superAdmin();
  return (await h.client.createProject({ project: { name: `Project ${slug}`, slug, teamId: team.id } }, admin)).project!
    .id;
}

async function put(bytes: Uint8Array): Promise<ScanArtefact> {
  const stored = await store.put(`inventory/${randomUUID()}.pb`, bytesSource(bytes), { maxBytes: 1024 ** 3 });
  return create(ScanArtefactSchema, { key: stored.key, sizeBytes: BigInt(stored.sizeBytes), sha256: stored.sha256 });
}

type ComponentInit = MessageInitShape<typeof InventoryComponentSchema>;
type ListInit = Omit<MessageInitShape<typeof ListComponentsRequestSchema>, "projectId" | "$typeName"> & {
  projectId?: string;
};
type ExportInit = Omit<MessageInitShape<typeof ExportComponentsRequestSchema>, "projectId" | "$typeName">;
const record = (r: MessageInitShape<typeof InventoryRecordSchema>["record"]) =>
  sizeDelimitedEncode(InventoryRecordSchema, create(InventoryRecordSchema, { record: r }));
const documentRecord = (release?: string) =>
  record({ case: "document", value: { format: "cyclonedx-json", specVersion: "1.6", release, graphRooted: true } });
const componentRecord = (c: ComponentInit) => record({ case: "component", value: c });
const edgeRecord = (from: string | undefined, to: string, scope?: string) =>
  record({ case: "edge", value: { from, to, scope } });

async function ingest(projectId: string, bytes: Uint8Array, opts: { scanId?: string; release?: string } = {}) {
  const scanId = opts.scanId ?? randomUUID();
  const answer = await inventory.ingestInventory(
    { scanId, projectId, attempt: 1, inventory: await put(bytes), ref: "", release: opts.release },
    runner,
  );
  return { scanId, answer };
}

async function everyRow(projectId: string, req: ExportInit = {}): Promise<Component[]> {
  const rows: Component[] = [];
  for await (const chunk of inventory.exportComponents({ projectId, ...req }, member)) rows.push(...chunk.items);
  return rows;
}

describe("ingestion of every real SBOM", () => {
  it("writes each document's components, purls and licenses, and the list and export read them back", async () => {
    const files: string[] = [];
    for (const kind of ["cyclonedx", "spdx"])
      for (const name of await readdir(join(SBOM_DIR, kind))) files.push(join(SBOM_DIR, kind, name));
    expect(files.length).toBeGreaterThan(10);
    const projectId = await newProject();
    for (const file of files) {
      const artefact = scannerRunner.inventoryArtefactOf(await readFile(file));
      const expected = new Map<string, { purl?: string; license?: string }>();
      for await (const r of sizeDelimitedDecodeStream(InventoryRecordSchema, bytesSource(artefact)))
        if (r.record.case === "component" && !expected.has(r.record.value.key))
          expected.set(r.record.value.key, {
            purl: r.record.value.purl,
            license: r.record.value.concludedLicense ?? r.record.value.declaredLicense,
          });
      const { scanId, answer } = await ingest(projectId, artefact);
      expect({ file, count: answer.componentCount, again: answer.alreadyIngested }).toEqual({
        file,
        count: expected.size,
        again: false,
      });
      const list = await inventory.listComponents({ projectId, anchor: { scanId }, limit: 1 }, member);
      expect(list.total).toBe(expected.size);
      const rows = await everyRow(projectId, { anchor: { scanId } });
      expect(rows.map((c) => c.key).sort()).toEqual([...expected.keys()].sort());
      for (const c of rows) {
        expect(c.purl).toBe(expected.get(c.key)!.purl);
        expect(c.license).toBe(expected.get(c.key)!.license);
      }
    }
  }, 300_000);
});

describe("IngestInventory", () => {
  const artefact = Buffer.concat([
    documentRecord("1.0.0"),
    componentRecord({ key: "pkg:npm/a@1.0.0", name: "a", version: "1.0.0", purl: "pkg:npm/a@1.0.0", bomRefs: ["a"] }),
    componentRecord({ key: "pkg:npm/b@2.0.0", name: "b", version: "2.0.0", purl: "pkg:npm/b@2.0.0" }),
    // The same component again: its refs join the first.
    componentRecord({ key: "pkg:npm/a@1.0.0", name: "a", version: "1.0.0", bomRefs: ["a-again"] }),
    edgeRecord(undefined, "pkg:npm/a@1.0.0", "required"),
    edgeRecord("pkg:npm/a@1.0.0", "pkg:npm/b@2.0.0"),
    edgeRecord("pkg:npm/a@1.0.0", "pkg:npm/b@2.0.0"),
  ]);

  it("writes a scan once: a repeat changes nothing and says already_ingested", async () => {
    const projectId = await newProject();
    const { scanId, answer } = await ingest(projectId, artefact);
    expect(answer).toMatchObject({ componentCount: 2, edgeCount: 2, alreadyIngested: false });
    const again = await inventory.ingestInventory(
      { scanId, projectId, attempt: 2, inventory: await put(Buffer.concat([documentRecord()])), ref: "" },
      runner,
    );
    expect(again).toMatchObject({ componentCount: 2, edgeCount: 2, alreadyIngested: true });
    const rows = await everyRow(projectId);
    expect(rows.map((r) => [r.name, r.bomRefs])).toEqual([
      ["a", ["a", "a-again"]],
      ["b", []],
    ]);
  });

  it("answers two concurrent ingestions of one scan with one write", async () => {
    const projectId = await newProject();
    const scanId = randomUUID();
    const ref = await put(artefact);
    const answers = await Promise.all(
      [1, 2, 3].map(() => inventory.ingestInventory({ scanId, projectId, attempt: 1, inventory: ref }, runner)),
    );
    expect(answers.filter((a) => !a.alreadyIngested)).toHaveLength(1);
    expect((await inventory.listComponents({ projectId }, member)).total).toBe(2);
  });

  it("leaves nothing when the artefact breaks off mid-stream, names an unknown component or is not the one announced", async () => {
    const projectId = await newProject();
    const truncated = artefact.subarray(0, artefact.length - 3);
    const unknownEdge = Buffer.concat([artefact, edgeRecord("pkg:npm/a@1.0.0", "pkg:npm/zzz@9")]);
    for (const bytes of [truncated, unknownEdge]) {
      const scanId = randomUUID();
      await expect(ingest(projectId, bytes, { scanId })).rejects.toMatchObject({ code: Code.InvalidArgument });
      await expect(inventory.listComponents({ projectId, anchor: { scanId } }, member)).rejects.toMatchObject({
        code: Code.NotFound,
      });
    }
    const ref = await put(artefact);
    const wrong = create(ScanArtefactSchema, { ...ref, sha256: "0".repeat(64) });
    await expect(
      inventory.ingestInventory({ scanId: randomUUID(), projectId, attempt: 1, inventory: wrong }, runner),
    ).rejects.toMatchObject({ code: Code.FailedPrecondition });
    const missing = create(ScanArtefactSchema, { ...ref, key: "inventory/none.pb" });
    await expect(
      inventory.ingestInventory({ scanId: randomUUID(), projectId, attempt: 1, inventory: missing }, runner),
    ).rejects.toMatchObject({ code: Code.FailedPrecondition });
    expect((await inventory.listComponents({ projectId }, member)).total).toBe(0);
  });

  it("refuses a dependency scope outside the contract before writing", async () => {
    const projectId = await newProject();
    const bad = Buffer.concat([artefact, componentRecord({ key: "k", name: "k", dependencyScope: "excluded" })]);
    await expect(ingest(projectId, bad)).rejects.toMatchObject({ code: Code.InvalidArgument });
    expect((await inventory.listComponents({ projectId }, member)).total).toBe(0);
  });

  it("rolls back the whole write when the database refuses a row part-way through the COPY", async () => {
    const projectId = await newProject();
    const scanId = randomUUID();
    // A name no btree index entry can hold (random, so it does not compress below the limit): the last row fails.
    const refused = componentRecord({ key: "z", name: randomBytes(24_000).toString("base64") });
    await expect(ingest(projectId, Buffer.concat([artefact, refused]), { scanId })).rejects.toBeDefined();
    await expect(inventory.listComponents({ projectId, anchor: { scanId } }, member)).rejects.toMatchObject({
      code: Code.NotFound,
    });
    expect((await inventory.listComponents({ projectId }, member)).total).toBe(0);
  });

  it("stores a lone UTF-16 surrogate in raw_data or a text field as U+FFFD instead of failing", async () => {
    const projectId = await newProject();
    await ingest(
      projectId,
      Buffer.concat([
        documentRecord(),
        componentRecord({
          key: "s",
          name: "half\ud800pair",
          version: "1\udc00",
          rawData: Buffer.from('{"x":"\\ud800","k\\udfff":"\\\\ud800 is text","pair":"\\ud83d\\ude00"}'),
        }),
      ]),
    );
    const [row] = await everyRow(projectId);
    expect(row).toMatchObject({ name: "half\ufffdpair", version: "1\ufffd" });
    const { component } = await inventory.getComponent({ projectId, componentId: row!.componentId }, member);
    expect(JSON.parse(Buffer.from(component!.rawData).toString("utf8"))).toEqual({
      x: "\ufffd",
      "k\ufffd": "\\ud800 is text",
      pair: "\u{1f600}",
    });
  });

  it("is for the scanner-runner only", async () => {
    const projectId = await newProject();
    const req = { scanId: randomUUID(), projectId, attempt: 1, inventory: await put(artefact) };
    await expect(inventory.ingestInventory(req)).rejects.toMatchObject({ code: Code.Unauthenticated });
    for (const opts of [await h.superAdmin(), member, await callAs.service("gateway")])
      await expect(inventory.ingestInventory(req, opts)).rejects.toMatchObject({ code: Code.PermissionDenied });
    await expect(inventory.ingestInventory({ ...req, projectId: randomUUID() }, runner)).rejects.toMatchObject({
      code: Code.NotFound,
    });
  });

  it("answers the clone source, credential unsealed, to the scanner-runner only", async () => {
    const projectId = await newProject();
    const admin = await h.superAdmin();
    const bare = await inventory.getCloneSource({ projectId }, runner);
    expect([bare.gitUrl, bare.gitCredential]).toEqual([undefined, undefined]);
    await h.client.updateProject(
      { projectId, gitUrl: "https://git.example.com/a.git", defaultBranch: "trunk", gitCredential: "user:tok-1" },
      admin,
    );
    expect(await inventory.getCloneSource({ projectId }, runner)).toMatchObject({
      gitUrl: "https://git.example.com/a.git",
      defaultBranch: "trunk",
      gitCredential: "user:tok-1",
    });
    await expect(inventory.getCloneSource({ projectId })).rejects.toMatchObject({ code: Code.Unauthenticated });
    for (const opts of [admin, member, await callAs.service("gateway")])
      await expect(inventory.getCloneSource({ projectId }, opts)).rejects.toMatchObject({
        code: Code.PermissionDenied,
      });
    await expect(inventory.getCloneSource({ projectId: randomUUID() }, runner)).rejects.toMatchObject({
      code: Code.NotFound,
    });
  });

  it("cuts raw_data to JSONB_ROW_SIZE_LIMIT_BYTES", async () => {
    const projectId = await newProject();
    const raw = { name: "big", small: "kept", huge: "x".repeat(RAW_LIMIT * 2) };
    await ingest(
      projectId,
      Buffer.concat([
        documentRecord(),
        componentRecord({ key: "big", name: "big", rawData: Buffer.from(JSON.stringify(raw)) }),
      ]),
    );
    const [row] = await everyRow(projectId);
    const { component } = await inventory.getComponent({ projectId, componentId: row!.componentId }, member);
    const stored = JSON.parse(Buffer.from(component!.rawData).toString("utf8")) as Record<string, unknown>;
    expect(stored).toMatchObject({ $truncated: true, name: "big", small: "kept" });
    expect(stored.huge).toBeUndefined();
  });
});

describe("ListComponents", () => {
  let projectId: string;
  let first: string;
  let second: string;
  const names = ["delta", "alpha", "Charlie", "bravo", "echo"];

  beforeAll(async () => {
    projectId = await newProject();
    first = (
      await ingest(projectId, Buffer.concat([documentRecord("1.0"), componentRecord({ key: "old", name: "old" })]))
    ).scanId;
    const components = names.map((name, i) =>
      componentRecord({
        key: `pkg:npm/${name}@1.${i}`,
        name,
        version: `1.${i}`,
        purl: `pkg:npm/${name}@1.${i}`,
        declaredLicense: i % 2 === 0 ? "MIT" : "Apache-2.0",
        direct: i < 2,
        depth: i < 2 ? 1 : 2,
        dependencyScope: i === 4 ? undefined : i % 2 === 0 ? "required" : "optional",
      }),
    );
    second = (await ingest(projectId, Buffer.concat([documentRecord("2.0"), ...components]))).scanId;
    // What later stages fill, set here to prove the filters and the severity sort read it.
    const orm = h.projects.orm;
    await projectsFixtures.write(
      orm,
      "update inventory_components set severity_max = 'critical', severity_rank = 6, malicious_state = 'flagged', eol_state = 'eol', currency_state = 'outdated' where scan_id = ? and name = 'echo'",
      [second],
    );
    await projectsFixtures.write(
      orm,
      "update inventory_components set severity_max = 'low', severity_rank = 3, license_category = 'forbidden', currency_state = 'current' where scan_id = ? and name = 'alpha'",
      [second],
    );
  });

  const list = (req: ListInit = {}, opts?: CallOptions) =>
    inventory.listComponents({ projectId, ...req }, opts ?? member);
  const namesOf = async (req: ListInit = {}) => (await list(req)).items.map((c) => c.name);

  it("reads the newest snapshot by default, sorted by name with the default window", async () => {
    const page = await list();
    expect(page).toMatchObject({ scanId: second, total: 5, limit: 50, offset: 0 });
    expect(page.items.map((c) => c.name)).toEqual(["Charlie", "alpha", "bravo", "delta", "echo"]);
  });

  it("pages with limit and offset, and rejects a window past its bounds", async () => {
    expect(await list({ limit: 2, offset: 1 })).toMatchObject({ total: 5, limit: 2, offset: 1 });
    expect(await namesOf({ limit: 2, offset: 1 })).toEqual(["alpha", "bravo"]);
    expect(await namesOf({ offset: 10 })).toEqual([]);
    for (const bad of [{ limit: 501 }, { limit: -1 }, { offset: -1 }])
      await expect(list(bad)).rejects.toMatchObject({ code: Code.InvalidArgument });
    expect((await list({ limit: 500 })).limit).toBe(500);
  });

  it("sorts by name, severity and license in either order, with '-' inverting a field", async () => {
    expect(await namesOf({ order: "desc" })).toEqual(["echo", "delta", "bravo", "alpha", "Charlie"]);
    expect(await namesOf({ sort: "severity", order: "desc" })).toEqual(["echo", "alpha", "Charlie", "bravo", "delta"]);
    expect(await namesOf({ sort: "-severity" })).toEqual(["echo", "alpha", "Charlie", "bravo", "delta"]);
    expect(await namesOf({ sort: "license" })).toEqual(["alpha", "bravo", "Charlie", "delta", "echo"]);
    expect(await namesOf({ sort: "-license,-name" })).toEqual(["echo", "delta", "Charlie", "bravo", "alpha"]);
    await expect(list({ sort: "purl" })).rejects.toMatchObject({ code: Code.InvalidArgument });
    await expect(list({ order: "up" })).rejects.toMatchObject({ code: Code.InvalidArgument });
  });

  it("filters by search, direct, dependency scope (unknown values dropped), severity, category, eol, outdated, malicious", async () => {
    expect(await namesOf({ filter: { search: "LPH" } })).toEqual(["alpha"]);
    expect(await namesOf({ filter: { search: "npm/echo" } })).toEqual(["echo"]);
    expect(await namesOf({ filter: { search: "%" } })).toEqual([]);
    expect(await namesOf({ filter: { direct: true } })).toEqual(["alpha", "delta"]);
    expect(await namesOf({ filter: { dependencyScope: ["required"] } })).toEqual(["Charlie", "delta"]);
    expect(await namesOf({ filter: { dependencyScope: ["optional", "nonsense"] } })).toEqual(["alpha", "bravo"]);
    expect(await namesOf({ filter: { dependencyScope: ["unspecified"] } })).toEqual(["echo"]);
    expect(await namesOf({ filter: { dependencyScope: ["nonsense"] } })).toEqual([]);
    expect(await namesOf({ filter: { severity: ["critical", "low"] } })).toEqual(["alpha", "echo"]);
    await expect(list({ filter: { severity: ["dire"] } })).rejects.toMatchObject({ code: Code.InvalidArgument });
    expect(await namesOf({ filter: { licenseCategory: ["forbidden"] } })).toEqual(["alpha"]);
    expect(await namesOf({ filter: { eol: true } })).toEqual(["echo"]);
    expect(await namesOf({ filter: { eol: false } })).toHaveLength(4);
    expect(await namesOf({ filter: { outdated: true } })).toEqual(["echo"]);
    expect(await namesOf({ filter: { outdated: false } })).toHaveLength(4);
    expect(await namesOf({ filter: { malicious: true } })).toEqual(["echo"]);
    expect(await namesOf({ filter: { malicious: false } })).toEqual(["Charlie", "alpha", "bravo", "delta"]);
  });

  it("counts the matches of a filter on every page, past the last one too, and every row without a filter", async () => {
    expect(await list({ filter: { malicious: false }, limit: 1 })).toMatchObject({ total: 4 });
    expect(await list({ filter: { malicious: false }, limit: 1, offset: 3 })).toMatchObject({ total: 4 });
    const past = await list({ filter: { malicious: false }, offset: 10 });
    expect(past).toMatchObject({ total: 4, offset: 10 });
    expect(past.items).toEqual([]);
    expect(await list({ filter: { search: "nothing-like-it" } })).toMatchObject({ total: 0 });
    expect(await list({ offset: 10 })).toMatchObject({ total: 5, items: [] });
  });

  it("anchors on scan_id (over release) or release, 404 for one the project does not have", async () => {
    expect(await namesOf({ anchor: { scanId: first } })).toEqual(["old"]);
    expect(await namesOf({ anchor: { release: " 1.0 " } })).toEqual(["old"]);
    expect((await list({ anchor: { scanId: first, release: "2.0" } })).scanId).toBe(first);
    await expect(list({ anchor: { release: "3.0" } })).rejects.toMatchObject({ code: Code.NotFound });
    await expect(list({ anchor: { scanId: randomUUID() } })).rejects.toMatchObject({ code: Code.NotFound });
    const elsewhere = await newProject();
    await expect(
      inventory.listComponents({ projectId: elsewhere, anchor: { scanId: first } }, member),
    ).rejects.toMatchObject({ code: Code.NotFound });
    expect(await inventory.listComponents({ projectId: elsewhere }, member)).toMatchObject({ total: 0, scanId: "" });
  });

  it("hides the project from those who may not read it", async () => {
    await expect(list({}, outsider)).rejects.toMatchObject({ code: Code.NotFound });
    await expect(list({ projectId: randomUUID() })).rejects.toMatchObject({ code: Code.NotFound });
    await expect(inventory.listComponents({ projectId })).rejects.toMatchObject({ code: Code.Unauthenticated });
    const [row] = (await list()).items;
    await expect(inventory.getComponent({ projectId, componentId: row!.componentId }, outsider)).rejects.toMatchObject({
      code: Code.NotFound,
    });
  });

  it("exports the list's rows, whatever the sort", async () => {
    const filter = { dependencyScope: ["required", "optional"] };
    const listed = (await list({ filter, limit: 500 })).items.map((c) => c.id);
    const exported = (await everyRow(projectId, { filter, sort: "-license" })).map((c) => c.id);
    expect(exported).toEqual(listed);
  });

  it("answers one component in detail, in the anchor's snapshot", async () => {
    const [row] = (await list({ filter: { search: "alpha" } })).items;
    const { component } = await inventory.getComponent({ projectId, componentId: row!.componentId }, member);
    expect(component).toMatchObject({
      name: "alpha",
      version: "1.1",
      purl: "pkg:npm/alpha@1.1",
      direct: true,
      depth: 1,
      dependencyScope: "optional",
      license: "Apache-2.0",
      licenseCategory: "forbidden",
      severityMax: "low",
      scanId: second,
      projectId,
    });
    await expect(
      inventory.getComponent({ projectId, componentId: row!.componentId, anchor: { scanId: first } }, member),
    ).rejects.toMatchObject({ code: Code.NotFound });
  });
});
