// SbomExportService through the real servers: every real SBOM of the shared set ingested as the scanner-runner
// hands it over, then exported in each format, checked by validators we did not write (the official CycloneDX 1.6
// schemas, the SPDX project's spdx-tools) and read back by our own SBOM reader (the scanner-runner's test kit
// fixture): the same components, purls, licenses and edges. Byte stability across calls and a restart; the
// component list's anchors and hiding.
import { randomUUID } from "node:crypto";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { sizeDelimitedDecodeStream } from "@bufbuild/protobuf/wire";
import { Code, type Client } from "@connectrpc/connect";
import { bytesSource, DirectoryArtefactStore } from "@sca/artefacts";
import {
  InventoryRecordSchema,
  InventoryService,
  type InventoryAnchorSchema,
  type InventoryComponent,
  type InventoryDocument,
  type InventoryEdge,
} from "@sca/proto/sca/projects/v1/inventory_pb.ts";
import { SbomExportService, type SbomExportHeader } from "@sca/proto/sca/projects/v1/sbom_pb.ts";
import { fixturesOf, ingestArtefact, startService, type CallOptions, type TestService, sharedDir } from "@sca/testkit";
import { wellFormedCpe } from "../src/domain/sbom-export/cpe.ts";
import { spdxCurrentExpression } from "../src/domain/sbom-export/spdx.ts";
import { service } from "../src/service.ts";
import { startProjects, type ProjectsHarness } from "./support/projects-harness.ts";
import { cyclonedxJsonErrors, cyclonedxXmlErrorsOfEach, spdxErrors } from "./support/sbom-validators.ts";

const FORMATS = ["cyclonedx-json", "cyclonedx-xml", "spdx-json"] as const;
type Format = (typeof FORMATS)[number];

const SBOM_DIR = join(sharedDir(), "data", "sbom");

let h: ProjectsHarness;
let dir: string;
let store: DirectoryArtefactStore;
let exporter: Client<typeof SbomExportService>;
// Caller tokens are short-lived and this file runs for minutes: each call gets a fresh one.
let member: () => Promise<CallOptions>;
let outsider: () => Promise<CallOptions>;
let teamId: string;
let artefactOf: (sbom: Uint8Array | string) => Uint8Array;
let restarted: TestService | undefined;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "sca-sbom-export-"));
  store = new DirectoryArtefactStore(dir);
  h = await startProjects({ ARTEFACT_DIR: dir });
  exporter = h.projects.client(SbomExportService);
  const team = await h.team();
  teamId = team.id;
  const memberId = randomUUID();
  const otherTeam = await h.team();
  member = () => h.as(memberId, [[team, "viewer"]]);
  const outsiderId = randomUUID();
  outsider = () => h.as(outsiderId, [[otherTeam, "team_admin"]]);
  const runnerFixtures = await fixturesOf("scanner-runner");
  artefactOf = (sbom) => runnerFixtures.inventoryArtefactOf(sbom);
}, 60_000);

afterAll(async () => {
  await h?.close();
  // After the harness: closing it dropped the schema the restarted instance shared.
  await restarted?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function newProject(): Promise<{ id: string; slug: string }> {
  const slug = `p-${randomUUID().slice(0, 8)}`;
  const { project } = await h.client.createProject(
    { project: { name: `Project ${slug}`, slug, teamId } },
    await h.superAdmin(),
  );
  return { id: project!.id, slug };
}

function ingest(projectId: string, artefact: Uint8Array, release?: string): Promise<string> {
  return ingestArtefact(h.projects.client(InventoryService), store, projectId, artefact, { release });
}

interface Exported {
  header: SbomExportHeader;
  bytes: Buffer;
  chunks: number;
}

async function exportSbom(
  projectId: string,
  format: string,
  anchor?: Omit<MessageInitShape<typeof InventoryAnchorSchema>, "$typeName">,
  as: () => Promise<CallOptions> = member,
  client: Client<typeof SbomExportService> = exporter,
): Promise<Exported> {
  let header: SbomExportHeader | undefined;
  const chunks: Uint8Array[] = [];
  for await (const m of client.exportSbom({ projectId, format, anchor }, await as())) {
    if (m.part.case === "header") {
      expect(header).toBeUndefined();
      expect(chunks).toHaveLength(0);
      header = m.part.value;
    } else if (m.part.case === "chunk") chunks.push(m.part.value);
  }
  expect(header).toBeDefined();
  return { header: header!, bytes: Buffer.concat(chunks), chunks: chunks.length };
}

interface Inventory {
  document: InventoryDocument;
  components: InventoryComponent[];
  edges: InventoryEdge[];
}

/** What our reader makes of an SBOM (the scanner-runner's inventory artefact, decoded). */
async function inventoryOf(sbom: Uint8Array): Promise<Inventory> {
  const out: Inventory = { document: undefined as unknown as InventoryDocument, components: [], edges: [] };
  for await (const r of sizeDelimitedDecodeStream(InventoryRecordSchema, bytesSource(artefactOf(sbom)))) {
    if (r.record.case === "document") out.document = r.record.value;
    if (r.record.case === "component") out.components.push(r.record.value);
    if (r.record.case === "edge") out.edges.push(r.record.value);
  }
  return out;
}

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
/** A component's identity that survives every format: the purl, else name@version. */
const identityOf = (c: InventoryComponent) => c.purl ?? `${c.name}@${c.version ?? ""}`;

/** The facts a format carries, per component and per edge, sorted: equal lists mean equal inventories. */
function factsOf(inv: Inventory, format: Format) {
  const identities = new Map(inv.components.map((c) => [c.key, identityOf(c)]));
  const components = inv.components
    .map((c) => {
      const common = {
        id: identityOf(c),
        name: c.name,
        version: c.version ?? null,
        purl: c.purl ?? null,
        // Malformed 2.3 names are written quoted (domain/sbom-export/cpe.ts); the reader reads what was written.
        cpe: wellFormedCpe(c.cpe ?? null),
        supplier: c.supplier ?? null,
        description: c.description ?? null,
      };
      return format === "spdx-json"
        ? {
            ...common,
            // SPDX gets the current form of the few deprecated "GPL-x-with-exception" ids.
            declared: spdxCurrentExpression(c.declaredLicense ?? null),
            concluded: spdxCurrentExpression(c.concludedLicense ?? null),
          }
        : {
            ...common,
            group: c.group ?? null,
            // CycloneDX 1.6 holds one expression: the concluded one when there is one (docs/sbom-export.md).
            license: c.concludedLicense ?? c.declaredLicense ?? null,
            scope: c.dependencyScope ?? null,
          };
    })
    .sort((a, b) => byText(a.id, b.id) || byText(JSON.stringify(a), JSON.stringify(b)));
  const edges = inv.edges
    .map(
      (e) =>
        `${e.from === undefined ? "(root)" : identities.get(e.from)} -> ${identities.get(e.to)}` +
        (format === "spdx-json" ? ` ${e.scope ?? ""}` : ""),
    )
    .sort(byText);
  return { count: inv.components.length, components, edges };
}

async function sbomFiles(): Promise<string[]> {
  const files: string[] = [];
  for (const kind of ["cyclonedx", "spdx"])
    for (const name of (await readdir(join(SBOM_DIR, kind))).sort()) files.push(join(SBOM_DIR, kind, name));
  return files;
}

/** The validator's verdict on each text, in one run where the validator allows it (a start costs more than most). */
async function errorsOfEach(format: Format, texts: string[]): Promise<unknown[]> {
  if (format === "cyclonedx-json") return Promise.all(texts.map((text) => cyclonedxJsonErrors(text)));
  if (format === "cyclonedx-xml") return cyclonedxXmlErrorsOfEach(texts);
  return spdxErrors(texts);
}

describe("every real SBOM, exported in each format", () => {
  // Each document is read and ingested once; every format exports the same scans.
  const ingestAll = async () => {
    const files = await sbomFiles();
    expect(files.length).toBeGreaterThan(20);
    const project = await newProject();
    const out: { file: string; before: Inventory; scanId: string }[] = [];
    for (const file of files) {
      const original = await readFile(file);
      out.push({ file, before: await inventoryOf(original), scanId: await ingest(project.id, artefactOf(original)) });
    }
    return { projectId: project.id, documents: out };
  };
  let all: ReturnType<typeof ingestAll> | undefined;

  it.each(FORMATS)(
    "%s: valid against its schema, and our reader reads back the same inventory",
    async (format) => {
      const { projectId, documents } = await (all ??= ingestAll());
      // Every file is checked before the verdict, so one run names every document that fails.
      const failures: unknown[] = [];
      const exports: Exported[] = [];
      for (const { scanId } of documents) {
        const exported = await exportSbom(projectId, format, { scanId });
        expect(exported.header).toMatchObject({ format, scanId });
        exports.push(exported);
      }
      const verdicts = await errorsOfEach(
        format,
        exports.map((e) => e.bytes.toString("utf8")),
      );
      for (const [i, { file, before }] of documents.entries()) {
        const exported = exports[i]!;
        const errors = verdicts[i];
        if (errors !== null) failures.push({ file, errors });
        const after = await inventoryOf(exported.bytes);
        const primaryOf = (inv: Inventory) => {
          const p = inv.document.primaryComponent;
          return p && { name: p.name, version: p.version ?? null, purl: p.purl ?? null };
        };
        const expected = {
          ...factsOf(before, format),
          primary: before.document.primaryComponent ? primaryOf(before) : primaryOf(after),
          rooted: before.document.graphRooted,
        };
        const actual = { ...factsOf(after, format), primary: primaryOf(after), rooted: after.document.graphRooted };
        if (JSON.stringify(actual) !== JSON.stringify(expected)) {
          const differs = (a: unknown[], b: unknown[]) =>
            a.filter((x) => !b.some((y) => JSON.stringify(y) === JSON.stringify(x)));
          failures.push({
            file,
            counts: [expected.count, actual.count],
            primary: [expected.primary, actual.primary],
            rooted: [expected.rooted, actual.rooted],
            componentsLost: differs(expected.components, actual.components).slice(0, 3),
            componentsRead: differs(actual.components, expected.components).slice(0, 3),
            edgesLost: differs(expected.edges, actual.edges).slice(0, 3),
            edgesRead: differs(actual.edges, expected.edges).slice(0, 3),
          });
        }
      }
      expect(failures).toEqual([]);
    },
    300_000,
  );
});

describe("one snapshot", () => {
  let project: { id: string; slug: string };
  let first: string;
  let second: string;

  beforeAll(async () => {
    project = await newProject();
    const juice = await readFile(join(SBOM_DIR, "cyclonedx", "juice-shop-cyclonedx-npm.cdx-1.7.json"));
    const flux = await readFile(join(SBOM_DIR, "spdx", "flux-0.26.3.spdx-2.2.json"));
    first = await ingest(project.id, artefactOf(juice), "17.0");
    second = await ingest(project.id, artefactOf(flux), "0.26.3");
  }, 60_000);

  it("is the same bytes on every call, in chunks, with the header naming the download", async () => {
    for (const format of FORMATS) {
      const a = await exportSbom(project.id, format, { scanId: first });
      const b = await exportSbom(project.id, format, { scanId: first });
      expect(a.bytes.equals(b.bytes)).toBe(true);
      expect(a.chunks).toBeGreaterThan(1);
      expect(a.header).toMatchObject({
        format,
        scanId: first,
        fileName: `sbom-${project.slug}.${{ "cyclonedx-json": "cdx.json", "cyclonedx-xml": "cdx.xml", "spdx-json": "spdx.json" }[format]}`,
      });
    }
    const bom = JSON.parse((await exportSbom(project.id, "cyclonedx-json", { scanId: first })).bytes.toString()) as {
      metadata: { timestamp: string };
    };
    // The snapshot's ingestion time, not the time of the call.
    expect(Date.now() - Date.parse(bom.metadata.timestamp)).toBeGreaterThan(0);
  });

  it("is the same bytes after a restart of the service", async () => {
    const before = await Promise.all(FORMATS.map((f) => exportSbom(project.id, f, { scanId: first })));
    restarted = await startService(service, {
      schema: h.projects.schema,
      env: { IDENTITY_RPC_URL: h.identity.url!, ARTEFACT_DIR: dir },
    });
    const again = restarted.client(SbomExportService);
    for (const [i, format] of FORMATS.entries()) {
      const after = await exportSbom(project.id, format, { scanId: first }, member, again);
      expect(after.bytes.equals(before[i]!.bytes)).toBe(true);
    }
  }, 60_000);

  it("anchors as the component list does: newest by default, scan_id over release, release", async () => {
    expect((await exportSbom(project.id, "")).header).toMatchObject({ scanId: second, format: "cyclonedx-json" });
    expect((await exportSbom(project.id, "spdx-json", { release: " 17.0 " })).header.scanId).toBe(first);
    expect((await exportSbom(project.id, "spdx-json", { scanId: first, release: "0.26.3" })).header.scanId).toBe(first);
  });

  it("is 404 for an unknown scan_id or release, a project without scans, and a project the caller may not read", async () => {
    const notFound = { code: Code.NotFound };
    await expect(exportSbom(project.id, "spdx-json", { scanId: randomUUID() })).rejects.toMatchObject(notFound);
    await expect(exportSbom(project.id, "spdx-json", { release: "9.9" })).rejects.toMatchObject(notFound);
    const other = await newProject();
    await expect(exportSbom(other.id, "cyclonedx-json", { scanId: first })).rejects.toMatchObject(notFound);
    await expect(exportSbom(other.id, "cyclonedx-json")).rejects.toMatchObject(notFound);
    await expect(exportSbom(project.id, "cyclonedx-json", undefined, outsider)).rejects.toMatchObject(notFound);
    await expect(exportSbom(randomUUID(), "cyclonedx-json")).rejects.toMatchObject(notFound);
  });

  it("refuses an unknown format, naming the accepted ones", async () => {
    await expect(exportSbom(project.id, "spdx-tag-value")).rejects.toMatchObject({
      code: Code.InvalidArgument,
      rawMessage: expect.stringContaining("cyclonedx-json, cyclonedx-xml, spdx-json") as unknown,
    });
  });
});
