// GET /v1/projects/{id}/sbom through a real gateway, projects and identity: an inventory ingested as the
// scanner-runner hands it over, exported in each format with its media type and file name, the same bytes on every
// request, problem documents for an unknown format and for what the caller may not see, and the route's OpenAPI.
import { randomUUID } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createConfig, lintFromString } from "@redocly/openapi-core";
import { DirectoryArtefactStore } from "@sca/artefacts";
import { InventoryService } from "@sca/proto/sca/projects/v1/inventory_pb.ts";
import { eventually, fixturesOf, ingestArtefact, publishScanState, sharedDir } from "@sca/testkit";
import { startProjectsStack, type ProjectsStack } from "./projects-stack.ts";

const SBOM = join(sharedDir(), "data", "sbom", "cyclonedx", "juice-shop-cyclonedx-npm.cdx-1.7.json");

let s: ProjectsStack;
let dir: string;
let member: string;
let outsider: string;
let projectId: string;
let slug: string;
let emptyProjectId: string;
let scanId: string;
let teamId: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "sca-sbom-route-"));
  s = await startProjectsStack({ ARTEFACT_DIR: dir });
  const team = await s.team();
  teamId = team.id;
  const other = await s.team();
  member = (await s.person([[team.id, "viewer"]])).token;
  outsider = (await s.person([[other.id, "team_admin"]])).token;
  const admin = await s.superAdminToken();
  slug = `juice-${randomUUID().slice(0, 6)}`;
  projectId = (
    await s.request("POST", "/v1/projects", { bearer: admin, body: { name: "Juice", slug, team_id: team.id } })
  ).json.id as string;
  emptyProjectId = (
    await s.request("POST", "/v1/projects", {
      bearer: admin,
      body: { name: "Empty", slug: `empty-${randomUUID().slice(0, 6)}`, team_id: team.id },
    })
  ).json.id as string;
  const artefact = (await fixturesOf("scanner-runner")).inventoryArtefactOf(await readFile(SBOM));
  scanId = await ingestArtefact(
    s.projects.client(InventoryService),
    new DirectoryArtefactStore(dir),
    projectId,
    artefact,
    {
      release: "17.0",
    },
  );
}, 60_000);

afterAll(async () => {
  await s?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function get(query: string, bearer = member, id = projectId) {
  const res = await fetch(`${s.gateway.origin}/v1/projects/${id}/sbom${query}`, {
    headers: { authorization: `Bearer ${bearer}` },
  });
  return {
    status: res.status,
    type: res.headers.get("content-type"),
    disposition: res.headers.get("content-disposition"),
    bytes: Buffer.from(await res.arrayBuffer()),
  };
}

describe("GET /v1/projects/{id}/sbom", () => {
  it("answers CycloneDX 1.6 JSON by default, as an attachment, the same bytes every time", async () => {
    const a = await get("");
    expect(a).toMatchObject({
      status: 200,
      type: "application/vnd.cyclonedx+json; version=1.6",
      disposition: `attachment; filename="sbom-${slug}.cdx.json"`,
    });
    const bom = JSON.parse(a.bytes.toString("utf8")) as {
      bomFormat: string;
      specVersion: string;
      components: unknown[];
    };
    expect(bom).toMatchObject({ bomFormat: "CycloneDX", specVersion: "1.6" });
    expect(bom.components.length).toBeGreaterThan(500);
    const b = await get(`?format=cyclonedx-json&scan_id=${scanId}`);
    expect(b.bytes.equals(a.bytes)).toBe(true);
    expect((await get("?release=17.0")).bytes.equals(a.bytes)).toBe(true);
  });

  it("answers CycloneDX XML and SPDX 2.3 JSON with their media types and file names", async () => {
    const xml = await get("?format=cyclonedx-xml");
    expect(xml).toMatchObject({
      status: 200,
      type: "application/vnd.cyclonedx+xml; version=1.6",
      disposition: `attachment; filename="sbom-${slug}.cdx.xml"`,
    });
    expect(xml.bytes.toString("utf8")).toMatch(
      /^<\?xml version="1.0" encoding="UTF-8"\?>\n<bom xmlns="http:\/\/cyclonedx.org\/schema\/bom\/1.6"/,
    );
    expect((await get("?format=cyclonedx-xml")).bytes.equals(xml.bytes)).toBe(true);
    const spdx = await get("?format=spdx-json");
    expect(spdx).toMatchObject({
      status: 200,
      type: "application/spdx+json",
      disposition: `attachment; filename="sbom-${slug}.spdx.json"`,
    });
    expect(JSON.parse(spdx.bytes.toString("utf8"))).toMatchObject({ spdxVersion: "SPDX-2.3" });
  });

  it("refuses an unknown format with a problem naming the accepted values", async () => {
    const r = await get("?format=spdx-tag-value");
    expect(r).toMatchObject({ status: 422, type: expect.stringMatching(/^application\/problem\+json/) as unknown });
    expect(r.bytes.toString("utf8")).toContain("cyclonedx-json, cyclonedx-xml, spdx-json");
  });

  it("is a 404 problem for an unknown anchor, a project without scans and a project the caller may not read", async () => {
    for (const r of [
      await get(`?scan_id=${randomUUID()}`),
      await get("?release=0.0.1"),
      await get("", member, emptyProjectId),
      await get("", outsider),
    ])
      expect(r).toMatchObject({ status: 404, type: expect.stringMatching(/^application\/problem\+json/) as unknown });
  });

  it("is in the OpenAPI document with its three media types, and the document still validates", async () => {
    const res = await fetch(`${s.gateway.origin}/api/openapi.json`);
    const text = await res.text();
    const doc = JSON.parse(text) as {
      paths: Record<
        string,
        { get: { parameters: { name: string }[]; responses: Record<string, { content: object }> } }
      >;
    };
    const op = doc.paths["/v1/projects/{id}/sbom"]!.get;
    expect(op.parameters.map((p) => p.name)).toEqual(["id", "format", "scan_id", "release"]);
    expect(Object.keys(op.responses["200"]!.content)).toEqual([
      "application/vnd.cyclonedx+json; version=1.6",
      "application/vnd.cyclonedx+xml; version=1.6",
      "application/spdx+json",
    ]);
    const config = await createConfig({ rules: { struct: "error", "no-unresolved-refs": "error" } });
    expect((await lintFromString({ source: text, absoluteRef: "openapi.json", config })).map((p) => p.message)).toEqual(
      [],
    );
  });
});

describe("signing on a deployment without a key (the default)", () => {
  it("leaves the succeeded scan unsigned, its signature a 404 naming why, its export served", async () => {
    const developer = (await s.person([[teamId, "developer"]])).token;
    const producer = s.projects.kafka!.producer();
    await producer.connect();
    try {
      await publishScanState(s.projects, producer, { scanId, projectId, teamId });
    } finally {
      await producer.disconnect();
    }
    const signature = async () => {
      const res = await fetch(`${s.gateway.origin}/v1/projects/${projectId}/sbom/signature`, {
        headers: { authorization: `Bearer ${developer}` },
      });
      return { status: res.status, json: (await res.json()) as Record<string, unknown> };
    };
    const r = await eventually(signature, (x) => x.status === 404 && x.json.unsigned_reason !== "pending");
    expect(r).toMatchObject({ status: 404, json: { unsigned_reason: "not_configured", scan_id: scanId } });
    expect((await get("")).status).toBe(200);
  });
});
