// LicenseInventoryService through the real servers: a real SBOM of the shared set ingested as the scanner-runner
// hands it over, its licenses summarised in SQL and checked against the component list (another read path), the
// attributions streamed once each in name order, the first-party license detections the scancode stage recorded (a
// page in recorded order, the path filter), a project without scans, and hiding from outsiders.
import { randomUUID } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { create } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import { bytesSource, DirectoryArtefactStore } from "@sca/artefacts";
import { ScanArtefactSchema } from "@sca/proto/sca/events/v1/scans_pb.ts";
import { FileLicenseService } from "@sca/proto/sca/projects/v1/file_licenses_pb.ts";
import { InventoryService } from "@sca/proto/sca/projects/v1/inventory_pb.ts";
import {
  LicenseInventoryService,
  type AttributedComponent,
  type AttributionsHeader,
} from "@sca/proto/sca/projects/v1/license_inventory_pb.ts";
import { callAs, fixturesOf, sharedDir, type CallOptions } from "@sca/testkit";
import { startProjects, type ProjectsHarness } from "./support/projects-harness.ts";

const SBOM = join(sharedDir(), "data", "sbom", "cyclonedx", "keycloak-10.0.2.cdx-1.2.json");

let h: ProjectsHarness;
let dir: string;
let member: () => Promise<CallOptions>;
let outsider: () => Promise<CallOptions>;
let projectId: string;
let emptyProjectId: string;
let scanId: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "sca-license-inventory-"));
  const store = new DirectoryArtefactStore(dir);
  h = await startProjects({ ARTEFACT_DIR: dir });
  const team = await h.team();
  const otherTeam = await h.team();
  const memberId = randomUUID();
  const outsiderId = randomUUID();
  member = () => h.as(memberId, [[team, "viewer"]]);
  outsider = () => h.as(outsiderId, [[otherTeam, "team_admin"]]);
  const newProject = async (extra: Record<string, string> = {}) => {
    const slug = `p-${randomUUID().slice(0, 8)}`;
    const { project } = await h.client.createProject(
      { project: { name: `Project ${slug}`, slug, teamId: team.id, ...extra } },
      await h.superAdmin(),
    );
    return project!.id;
  };
  projectId = await newProject({ distributionModel: "saas" });
  emptyProjectId = await newProject();
  const artefact = (await fixturesOf("scanner-runner")).inventoryArtefactOf(await readFile(SBOM));
  const stored = await store.put(`inventory/${randomUUID()}.pb`, bytesSource(artefact), { maxBytes: 1024 ** 3 });
  scanId = randomUUID();
  await h.projects.client(InventoryService).ingestInventory(
    {
      scanId,
      projectId,
      attempt: 1,
      inventory: create(ScanArtefactSchema, {
        key: stored.key,
        sizeBytes: BigInt(stored.sizeBytes),
        sha256: stored.sha256,
      }),
    },
    await callAs.service("scanner-runner"),
  );
}, 60_000);

afterAll(async () => {
  await h?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Every component of the newest snapshot through the component list, 500 at a time. */
async function listedLicenses(): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  const inventory = h.projects.client(InventoryService);
  for (let offset = 0; ; offset += 500) {
    const page = await inventory.listComponents({ projectId, limit: 500, offset }, await member());
    for (const c of page.items) counts.set(c.license ?? "", (counts.get(c.license ?? "") ?? 0) + 1);
    if (offset + 500 >= page.total) return counts;
  }
}

describe("SummariseProjectLicenses", () => {
  it("counts the newest snapshot's license expressions as the component list shows them", async () => {
    const client = h.projects.client(LicenseInventoryService);
    const summary = await client.summariseProjectLicenses({ projectId }, await member());
    expect(summary).toMatchObject({
      scanId,
      truncated: false,
      expressionCap: 5000,
      project: { id: projectId, distributionModel: "saas" },
    });
    const listed = await listedLicenses();
    expect(new Map(summary.expressions.map((e) => [e.expression, e.componentCount]))).toEqual(listed);
    expect(summary.expressions.reduce((n, e) => n + e.componentCount, 0)).toBe(summary.componentCount);
    const counts = summary.expressions.map((e) => e.componentCount);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));
  });

  it("answers no scan and no expressions for a project without a succeeded scan, NotFound to outsiders", async () => {
    const client = h.projects.client(LicenseInventoryService);
    const empty = await client.summariseProjectLicenses({ projectId: emptyProjectId }, await member());
    expect(empty).toMatchObject({ scanId: "", componentCount: 0, expressions: [] });
    await expect(client.summariseProjectLicenses({ projectId }, await outsider())).rejects.toMatchObject({
      code: Code.NotFound,
    });
  });
});

describe("ExportAttributions", () => {
  it("streams the header, then every component once in name order", async () => {
    const client = h.projects.client(LicenseInventoryService);
    const seen: AttributedComponent[] = [];
    let header: AttributionsHeader | undefined;
    for await (const m of client.exportAttributions({ projectId }, await member())) {
      if (m.part.case === "header") header = m.part.value;
      else if (m.part.case === "chunk") {
        expect(m.part.value.components.length).toBeLessThanOrEqual(500);
        seen.push(...m.part.value.components);
      }
    }
    expect(header).toMatchObject({ scanId, project: { id: projectId } });
    expect(seen).toHaveLength(header!.componentCount);
    const names = seen.map((c) => c.name);
    expect(names).toEqual([...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    expect(new Set(seen.map((c) => `${c.purl}`)).size).toBe(seen.length);
    const licensed = seen.filter((c) => c.license).length;
    const listed = await listedLicenses();
    expect(licensed).toBe(header!.componentCount - (listed.get("") ?? 0));
  });

  it("is NotFound without a succeeded scan and for an outsider", async () => {
    const client = h.projects.client(LicenseInventoryService);
    for (const [id, as] of [
      [emptyProjectId, member],
      [projectId, outsider],
    ] as const) {
      const drain = async () => {
        for await (const _ of client.exportAttributions({ projectId: id }, await as())) void _;
      };
      await expect(drain()).rejects.toMatchObject({ code: Code.NotFound });
    }
  });
});

describe("ListFileLicenses", () => {
  const detections = [
    { path: "LICENSE", license: "Apache-2.0", score: 100, startLine: 1, endLine: 202, matcher: "1-hash", rule: "a" },
    { path: "src/Main/COPYING", license: "MIT", score: 87.5, startLine: 3, endLine: 21, matcher: "2-aho", rule: "b" },
    {
      path: "src/util/notice.txt",
      license: "BSD-3-Clause",
      score: 42.25,
      startLine: 7,
      endLine: 9,
      matcher: "3-seq",
      rule: "c",
    },
  ];

  beforeAll(async () => {
    await h.projects.client(FileLicenseService).recordFileLicenses(
      {
        projectId,
        scanId,
        stage: {
          status: "timed_out",
          message: "scancode: timed out",
          fileCount: 40,
          scannedFileCount: 12,
          truncated: true,
        },
        detections,
      },
      await callAs.service("scanner-runner"),
    );
  });

  it("answers the stage and a page of the detections in recorded order with the whole count", async () => {
    const client = h.projects.client(FileLicenseService);
    const first = await client.listFileLicenses({ projectId, limit: 2, offset: 0 }, await member());
    expect(first).toMatchObject({
      scanId,
      stage: {
        status: "timed_out",
        message: "scancode: timed out",
        fileCount: 40,
        scannedFileCount: 12,
        truncated: true,
      },
      total: 3,
    });
    expect(first.items.map((d) => ({ ...d, $typeName: undefined }))).toEqual(
      detections.slice(0, 2).map((d) => ({ ...d, $typeName: undefined })),
    );
    const rest = await client.listFileLicenses({ projectId, limit: 2, offset: 2 }, await member());
    expect(rest.total).toBe(3);
    expect(rest.items.map((d) => [d.path, d.score])).toEqual([["src/util/notice.txt", 42.25]]);
  });

  it("filters by a part of the path, ignoring case, and counts the matches", async () => {
    const client = h.projects.client(FileLicenseService);
    const page = await client.listFileLicenses({ projectId, path: "SRC/", limit: 10, offset: 0 }, await member());
    expect(page.total).toBe(2);
    expect(page.items.map((d) => d.path)).toEqual(["src/Main/COPYING", "src/util/notice.txt"]);
    const none = await client.listFileLicenses({ projectId, path: "%", limit: 10, offset: 0 }, await member());
    expect(none).toMatchObject({ total: 0, items: [] });
  });

  it("answers no scan for a project without a succeeded scan, NotFound to outsiders", async () => {
    const client = h.projects.client(FileLicenseService);
    const empty = await client.listFileLicenses({ projectId: emptyProjectId, limit: 10, offset: 0 }, await member());
    expect(empty).toMatchObject({ scanId: "", total: 0, items: [] });
    expect(empty.stage).toBeUndefined();
    await expect(client.listFileLicenses({ projectId, limit: 10, offset: 0 }, await outsider())).rejects.toMatchObject({
      code: Code.NotFound,
    });
  });
});
