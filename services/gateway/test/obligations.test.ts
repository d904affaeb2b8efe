// Obligations, fulfilments and the notice through a real gateway, identity, projects, policy and admin (one topic
// prefix, as in a deployment): the juice-shop SBOM of ../shared/data ingested as the scanner-runner hands it over,
// its obligations counted against the document itself and judged for the project's distribution_model, sorting,
// filtering and paging, fulfilments (PUT with optional If-Match, 412 with current_version, DELETE, the list) with
// the role rules and every change in admin's audit log, the notice with the SPDX texts, 10000 components streamed,
// problem documents for bad input and what the caller may not see.
import { randomUUID } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { DirectoryArtefactStore } from "@sca/artefacts";
import { DirectoryService } from "@sca/proto/sca/identity/v1/directory_pb.ts";
import { InventoryService } from "@sca/proto/sca/projects/v1/inventory_pb.ts";
import {
  closeTogether,
  callAs,
  fixturesOf,
  ingestArtefact,
  generateCycloneDxBom,
  sharedDir,
  startService,
  uniqueName,
  type TestService,
} from "@sca/testkit";
import { startTestGateway, type TestGateway } from "./harness.ts";

const SBOM = join(sharedDir(), "data", "sbom", "cyclonedx", "juice-shop-cyclonedx-npm.cdx-1.7.json");

interface Reply {
  status: number;
  type: string;
  etag: string | null;
  text: string;
  json: Record<string, unknown>;
}

type Obligation = {
  id: string;
  obligation: string;
  license: string;
  license_category: string;
  component_count: number;
  fulfilled: boolean;
  fulfilment: Record<string, unknown> | null;
};

let dir: string;
let identity: TestService;
let projects: TestService;
let policy: TestService;
let admin: TestService;
let gateway: TestGateway;
let root: string;
let developer: string;
let viewer: string;
let outsider: string;
let teamId: string;
let projectId: string;
let emptyProjectId: string;
let scanId: string;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function request(
  method: string,
  path: string,
  bearer: string,
  opts: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const res = await fetch(`${gateway.origin}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${bearer}`,
      ...(opts.body !== undefined ? { "content-type": "application/json" } : {}),
      ...opts.headers,
    },
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  const text = await res.text();
  const type = res.headers.get("content-type") ?? "";
  return {
    status: res.status,
    type,
    etag: res.headers.get("etag"),
    text,
    json: /json/.test(type) && text ? (JSON.parse(text) as Record<string, unknown>) : {},
  };
}

async function ingest(project: string, sbom: Uint8Array): Promise<string> {
  const artefact = (await fixturesOf("scanner-runner")).inventoryArtefactOf(sbom);
  return ingestArtefact(projects.client(InventoryService), new DirectoryArtefactStore(dir), project, artefact);
}

const obligationsPath = (query = "", id = projectId) => `/v1/projects/${id}/obligations${query}`;
const fulfilmentPath = (obligationId: string, id = projectId) =>
  `/v1/projects/${id}/obligations/${obligationId}/fulfilment`;
const isProblem = (r: Reply) => r.type.startsWith("application/problem+json");

async function allObligations(bearer = viewer): Promise<Obligation[]> {
  const r = await request("GET", obligationsPath("?limit=500"), bearer);
  expect(r.status).toBe(200);
  return r.json.items as Obligation[];
}

const find = (items: Obligation[], license: string, obligation: string) =>
  items.find((o) => o.license === license && o.obligation === obligation);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "sca-obligations-"));
  const KAFKA_TOPIC_PREFIX = `${uniqueName("obligations")}.`;
  const answerNamespace = `${uniqueName("identity_answers")}:`;
  identity = await startService("identity", {
    env: { PASSWORD_RESET_BASE_URL: "https://portal.example.com/reset-password", KAFKA_TOPIC_PREFIX },
    seams: { apiKeyAnswerNamespace: answerNamespace },
  });
  // Each calls the other (projects asks policy for license categories): policy's port is chosen first.
  const policyPort = await freePort();
  projects = await startService("projects", {
    env: {
      IDENTITY_RPC_URL: identity.url!,
      POLICY_RPC_URL: `http://127.0.0.1:${policyPort}`,
      KAFKA_TOPIC_PREFIX,
      ARTEFACT_DIR: dir,
    },
  });
  policy = await startService("policy", {
    env: {
      KAFKA_TOPIC_PREFIX,
      RPC_PORT: String(policyPort),
      IDENTITY_RPC_URL: identity.url!,
      PROJECTS_RPC_URL: projects.url!,
    },
  });
  admin = await startService("admin", { env: { KAFKA_TOPIC_PREFIX } });
  gateway = await startTestGateway({
    identity: { url: identity.url!, answerNamespace },
    services: { projects: projects.url!, policy: policy.url!, admin: admin.url! },
  });
  const directory = identity.client(DirectoryService);
  const rootCall = await callAs.superAdmin(randomUUID());
  const newTeam = async () => {
    const slug = `team-${randomUUID().slice(0, 8)}`;
    return (await directory.createTeam({ name: `Team ${slug}`, slug }, rootCall)).team!.id;
  };
  const team = await newTeam();
  teamId = team;
  const otherTeam = await newTeam();
  const fixtures = await fixturesOf("identity");
  const person = async (teamId: string | null, role: string, superAdmin = false) => {
    const id = await fixtures.user(identity.orm, { superAdmin });
    if (teamId) await directory.addTeamMember({ teamId, userId: id, role }, rootCall);
    return fixtures.accessToken(id);
  };
  root = await person(null, "", true);
  developer = await person(team, "developer");
  viewer = await person(team, "viewer");
  outsider = await person(otherTeam, "team_admin");
  const newProject = async (name: string, extra: Record<string, unknown> = {}) => {
    const slug = `${name}-${randomUUID().slice(0, 6)}`;
    const r = await request("POST", "/v1/projects", root, { body: { name, slug, team_id: team, ...extra } });
    expect(r.status).toBe(201);
    return r.json.id as string;
  };
  projectId = await newProject("juice", { distribution_model: "binary" });
  emptyProjectId = await newProject("empty");
  scanId = await ingest(projectId, await readFile(SBOM));
}, 120_000);

afterAll(async () => {
  await closeTogether([gateway, admin, policy, projects, identity]);
  if (dir) await rm(dir, { recursive: true, force: true });
});

/**
 * The document's own counts (ingestion keeps one component per purl): how many components name each license
 * expression, a lone license id counting as that id.
 */
async function documentCounts(): Promise<{ components: number; byExpression: Map<string, number> }> {
  const bom = JSON.parse(await readFile(SBOM, "utf8")) as { components: Record<string, unknown>[] };
  const byPurl = new Map<string, Record<string, unknown>>();
  const walk = (list: Record<string, unknown>[] = []) => {
    for (const c of list) {
      byPurl.set(c.purl as string, c);
      walk(c.components as Record<string, unknown>[] | undefined);
    }
  };
  walk(bom.components);
  const byExpression = new Map<string, number>();
  for (const c of byPurl.values()) {
    const licenses = (c.licenses ?? []) as { expression?: string; license?: { id?: string } }[];
    if (licenses.length !== 1) continue;
    const named = licenses[0]!.expression ?? licenses[0]!.license?.id;
    if (named) byExpression.set(named, (byExpression.get(named) ?? 0) + 1);
  }
  return { components: byPurl.size, byExpression };
}

describe("obligations", () => {
  it("derives a binary project's obligations from its components' licenses, counted as the document has them", async () => {
    const items = await allObligations();
    const { byExpression } = await documentCounts();
    // MIT's notice obligations hold where MIT is the license, one side of an AND, or the side an OR chooses (both
    // allowed: the left, so not in "(WTFPL OR MIT)" nor "(BSD-2-Clause OR MIT OR Apache-2.0)").
    const carrying = ["MIT", "(MIT OR Apache-2.0)", "(MIT OR WTFPL)", "(MIT AND Zlib)"].map((expression) => ({
      expression,
      component_count: byExpression.get(expression)!,
    }));
    expect(carrying.every((e) => e.component_count > 0)).toBe(true);
    const mitText = find(items, "MIT", "include-license-text")!;
    expect(mitText).toMatchObject({
      license_category: "allowed",
      component_count: carrying.reduce((n, e) => n + e.component_count, 0),
      fulfilled: false,
      fulfilment: null,
      scan_id: scanId,
      title: "Ship the license text with the component",
    });
    expect(find(items, "MIT", "retain-notices")?.component_count).toBe(mitText.component_count);
    expect(find(items, "WTFPL", "include-license-text")).toBeUndefined();
    expect(find(items, "Zlib", "include-license-text")?.component_count).toBe(byExpression.get("(MIT AND Zlib)"));
    // A shipped binary: no state-changes (that is for source).
    expect(find(items, "MIT", "state-changes")).toBeUndefined();
    // Components without a license ask for a review.
    expect(find(items, "NOASSERTION", "review-license-terms")?.component_count).toBeGreaterThan(0);
    const detail = await request("GET", `${obligationsPath()}/${mitText.id}`, viewer);
    expect(detail.status).toBe(200);
    // The inventory keeps an expression without its outer parentheses.
    const stored = carrying.map((e) => ({ ...e, expression: e.expression.replace(/^\((.*)\)$/, "$1") }));
    expect(detail.json.expressions).toEqual(expect.arrayContaining(stored));
    expect(detail.json.expressions).toHaveLength(carrying.length);
  });

  it("follows the project's distribution_model: a SaaS project owes nothing for permissive licenses", async () => {
    const before = await allObligations();
    expect(
      (await request("PATCH", `/v1/projects/${projectId}`, root, { body: { distribution_model: "saas" } })).status,
    ).toBe(200);
    const saas = await allObligations();
    expect(find(saas, "MIT", "include-license-text")).toBeUndefined();
    expect(find(saas, "NOASSERTION", "review-license-terms")).toBeDefined();
    // Unset: judged as if shipped every way, so source distribution's state-changes appears.
    await request("PATCH", `/v1/projects/${projectId}`, root, { body: { distribution_model: "" } });
    expect(find(await allObligations(), "MIT", "state-changes")).toBeDefined();
    await request("PATCH", `/v1/projects/${projectId}`, root, { body: { distribution_model: "binary" } });
    const again = await allObligations();
    expect(again.map((o) => o.id)).toEqual(before.map((o) => o.id));
  });

  it("follows the license policy in force: an override moves an OR's choice and the license's category", async () => {
    const before = await allObligations();
    const mitBefore = find(before, "MIT", "include-license-text")!;
    const apacheBefore = find(before, "Apache-2.0", "include-license-text")!;
    const { byExpression } = await documentCounts();
    const either = byExpression.get("(MIT OR Apache-2.0)")!;
    const orWtfpl = byExpression.get("(MIT OR WTFPL)")!;
    const put = await request("PUT", `/v1/license-policies/teams/${teamId}`, root, {
      body: { category_overrides: { MIT: "forbidden" } },
    });
    expect(put.status).toBe(201);
    const after = await allObligations();
    // OR is least_restrictive by default: "(MIT OR Apache-2.0)" now chooses Apache-2.0, "(MIT OR WTFPL)" WTFPL.
    expect(find(after, "MIT", "include-license-text")).toMatchObject({
      license_category: "forbidden",
      component_count: mitBefore.component_count - either - orWtfpl,
    });
    // WTFPL's family (public domain) asks nothing.
    expect(after.filter((o) => o.license === "WTFPL")).toEqual([]);
    expect(find(after, "Apache-2.0", "include-license-text")!.component_count).toBe(
      apacheBefore.component_count + either,
    );
    expect((await request("DELETE", `/v1/license-policies/teams/${teamId}`, root)).status).toBe(204);
    expect(find(await allObligations(), "MIT", "include-license-text")).toEqual(mitBefore);
  });

  it("sorts, filters and pages, refusing a bad query with a problem", async () => {
    const byCount = await request("GET", obligationsPath("?sort=-component_count,license&limit=2"), viewer);
    expect(byCount.status).toBe(200);
    const items = byCount.json.items as Obligation[];
    expect(byCount.json).toMatchObject({ limit: 2, offset: 0 });
    expect(items).toHaveLength(2);
    expect(items[0]!.component_count).toBeGreaterThanOrEqual(items[1]!.component_count);
    expect(items[0]!.license).toBe("MIT");
    const second = await request("GET", obligationsPath("?sort=-component_count,license&limit=2&offset=1"), viewer);
    expect((second.json.items as Obligation[])[0]).toEqual(items[1]);
    for (const query of ["?sort=name", "?limit=501", "?offset=-1", "?fulfilled=maybe"]) {
      const r = await request("GET", obligationsPath(query), viewer);
      expect({ query, status: r.status, problem: isProblem(r) }).toEqual({ query, status: 422, problem: true });
    }
  });

  it("is a 404 problem for a project the caller may not read, an unknown one, an unknown obligation", async () => {
    const one = (await allObligations())[0]!;
    for (const [path, bearer] of [
      [obligationsPath(), outsider],
      [obligationsPath("", randomUUID()), root],
      [`${obligationsPath()}/${randomUUID()}`, viewer],
      [`${obligationsPath()}/${one.id}`, outsider],
      [`/v1/projects/${projectId}/obligation-fulfilments`, outsider],
    ] as const) {
      const r = await request("GET", path, bearer);
      expect({ path, status: r.status, problem: isProblem(r) }).toEqual({ path, status: 404, problem: true });
    }
    const empty = await request("GET", obligationsPath("", emptyProjectId), viewer);
    expect(empty.json).toMatchObject({ items: [], total: 0 });
  });
});

describe("fulfilments", () => {
  let target: Obligation;

  beforeAll(async () => {
    target = find(await allObligations(), "MIT", "include-license-text")!;
  });

  it("are recorded by a developer, not a viewer; If-Match is optional and 412 carries the current version", async () => {
    const body = { note: "NOTICE file in the installer", evidence_url: "https://wiki.example.com/notice" };
    const refused = await request("PUT", fulfilmentPath(target.id), viewer, { body });
    expect(refused.status).toBe(403);
    expect(isProblem(refused)).toBe(true);
    const first = await request("PUT", fulfilmentPath(target.id), developer, { body });
    expect(first).toMatchObject({ status: 201, etag: '"1"' });
    expect(first.json).toMatchObject({
      project_id: projectId,
      obligation_id: target.id,
      obligation: "include-license-text",
      license: "MIT",
      note: body.note,
      evidence_url: body.evidence_url,
      version: 1,
      current: true,
    });
    // The same fields again: nothing changes.
    const same = await request("PUT", fulfilmentPath(target.id), developer, { body });
    expect(same).toMatchObject({ status: 200, etag: '"1"' });
    const changed = await request("PUT", fulfilmentPath(target.id), developer, {
      body: { note: "NOTICE shipped" },
      headers: { "if-match": '"1"' },
    });
    expect(changed).toMatchObject({ status: 200, etag: '"2"' });
    expect(changed.json).toMatchObject({ note: "NOTICE shipped", evidence_url: null, version: 2 });
    const stale = await request("PUT", fulfilmentPath(target.id), developer, {
      body: { note: "late" },
      headers: { "if-match": "1" },
    });
    expect(stale.status).toBe(412);
    expect(isProblem(stale)).toBe(true);
    expect(stale.json.current_version).toBe(2);
    const listed = find(await allObligations(), "MIT", "include-license-text")!;
    expect(listed).toMatchObject({ fulfilled: true, fulfilment: { version: 2, note: "NOTICE shipped" } });
    const open = await request("GET", obligationsPath("?fulfilled=false&limit=500"), viewer);
    expect((open.json.items as Obligation[]).some((o) => o.id === target.id)).toBe(false);
  });

  it("let one of two writers naming the same version win, the other gets 412", async () => {
    const answers = await Promise.all(
      ["a", "b"].map((note) =>
        request("PUT", fulfilmentPath(target.id), developer, { body: { note }, headers: { "if-match": '"2"' } }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 412]);
    expect(answers.find((a) => a.status === 412)!.json.current_version).toBe(3);
  });

  it("refuses bad input and unknown obligations with problems", async () => {
    for (const [body, headers, status] of [
      [{ evidence_url: "ftp://example.com/x" }, {}, 422],
      [{ note: "x".repeat(4001) }, {}, 422],
      [{ note: "ok" }, { "if-match": "yesterday" }, 422],
    ] as const) {
      const r = await request("PUT", fulfilmentPath(target.id), developer, { body, headers });
      expect({ status: r.status, problem: isProblem(r) }).toEqual({ status, problem: true });
    }
    const unknown = await request("PUT", fulfilmentPath(randomUUID()), developer, { body: {} });
    expect(unknown.status).toBe(404);
    const otherProject = await request("PUT", fulfilmentPath(target.id, emptyProjectId), developer, { body: {} });
    expect(otherProject.status).toBe(404);
    expect((await request("PUT", fulfilmentPath(target.id), outsider, { body: {} })).status).toBe(404);
  });

  it("are listed, newest change first, and removed by a developer (idempotently)", async () => {
    const other = find(await allObligations(), "ISC", "include-license-text")!;
    expect((await request("PUT", fulfilmentPath(other.id), developer, { body: {} })).status).toBe(201);
    const list = await request("GET", `/v1/projects/${projectId}/obligation-fulfilments`, viewer);
    expect(list.status).toBe(200);
    expect(list.json).toMatchObject({ total: 2, limit: 50, offset: 0 });
    expect((list.json.items as { obligation_id: string; current: boolean }[]).map((f) => f.obligation_id)).toEqual([
      other.id,
      target.id,
    ]);
    expect((await request("DELETE", fulfilmentPath(other.id), viewer)).status).toBe(403);
    expect((await request("DELETE", fulfilmentPath(other.id), developer)).status).toBe(204);
    expect((await request("DELETE", fulfilmentPath(other.id), developer)).status).toBe(204);
    expect((await request("DELETE", fulfilmentPath(randomUUID()), developer)).status).toBe(404);
    const after = await request("GET", `/v1/projects/${projectId}/obligation-fulfilments`, viewer);
    expect(after.json).toMatchObject({ total: 1 });
    expect(find(await allObligations(), "ISC", "include-license-text")).toMatchObject({ fulfilled: false });
  });

  it("audits every change into admin's log", async () => {
    const deadline = Date.now() + 30_000;
    let entries: { source: string; action: string; details: Record<string, string> }[] = [];
    while (Date.now() < deadline) {
      const page = await request("GET", "/v1/admin/audit?target_table=obligation_fulfilments&page_size=200", root);
      entries = (page.json.items as typeof entries).filter((e) => e.details?.project_id === projectId);
      if (entries.some((e) => e.action === "obligation_fulfilment.deleted")) break;
      await new Promise((r) => setTimeout(r, 300));
    }
    const actions = entries.map((e) => e.action);
    // Recorded twice (two obligations), changed twice (If-Match 1, then the race's winner), removed once.
    expect(actions.filter((a) => a === "obligation_fulfilment.created")).toHaveLength(2);
    expect(actions.filter((a) => a === "obligation_fulfilment.updated")).toHaveLength(2);
    expect(actions.filter((a) => a === "obligation_fulfilment.deleted")).toHaveLength(1);
    expect(entries.every((e) => e.source === "policy" && !JSON.stringify(e).includes("NOTICE shipped"))).toBe(true);
  }, 40_000);
});

describe("GET /v1/projects/{id}/notice", () => {
  it("attributes every component with its license and appends the SPDX texts, the same bytes every time", async () => {
    const r = await request("GET", `/v1/projects/${projectId}/notice`, viewer);
    expect(r.status).toBe(200);
    expect(r.type).toBe("text/plain; charset=utf-8");
    const { components } = await documentCounts();
    expect(r.text.startsWith("THIRD-PARTY SOFTWARE NOTICES\n")).toBe(true);
    expect(r.text).toContain(`Scan: ${scanId}`);
    expect(r.text.match(/^License: /gm)).toHaveLength(components);
    expect(r.text).toMatch(/^express 4\.\d+\.\d+\nPackage URL: pkg:npm\/express@4\.\d+\.\d+\nLicense: MIT$/m);
    const [, texts] = r.text.split("\nLICENSE TEXTS\n");
    expect(texts).toContain("MIT: MIT License");
    expect(texts).toContain("Permission is hereby granted, free of charge");
    expect(texts).toContain("Apache-2.0: Apache License 2.0");
    expect(texts).toContain("TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION");
    const again = await request("GET", `/v1/projects/${projectId}/notice`, developer);
    expect(again.text).toBe(r.text);
  });

  it("is a 404 problem without a succeeded scan and for a project the caller may not read", async () => {
    for (const [id, bearer] of [
      [emptyProjectId, viewer],
      [projectId, outsider],
      [randomUUID(), root],
    ] as const) {
      const r = await request("GET", `/v1/projects/${id}/notice`, bearer);
      expect({ status: r.status, problem: isProblem(r) }).toEqual({ status: 404, problem: true });
    }
  });

  it("streams a 10000-component project's notice", async () => {
    const bom = generateCycloneDxBom({ components: 10_000, seed: 9 });
    const big = await request("POST", "/v1/projects", root, {
      body: { name: "big", slug: `big-${randomUUID().slice(0, 6)}`, team_id: await teamOfProject() },
    });
    await ingest(big.json.id as string, Buffer.from(JSON.stringify(bom)));
    const res = await fetch(`${gateway.origin}/v1/projects/${big.json.id as string}/notice`, {
      headers: { authorization: `Bearer ${viewer}` },
    });
    expect(res.status).toBe(200);
    // Read as it arrives: count entries without holding the document.
    let entries = 0;
    let tail = "";
    const decoder = new TextDecoder();
    for await (const chunk of res.body!) {
      const text = tail + decoder.decode(chunk as Uint8Array, { stream: true });
      const lines = text.split("\n");
      tail = lines.pop()!;
      entries += lines.filter((l) => l.startsWith("License: ")).length;
    }
    expect(entries).toBe(10_000);
  }, 120_000);
});

async function teamOfProject(): Promise<string> {
  return (await request("GET", `/v1/projects/${projectId}`, root)).json.team_id as string;
}
