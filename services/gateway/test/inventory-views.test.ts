// The releases list, the dependency graph and the release diff through a real gateway, identity, projects and
// scan-orchestrator (real PostgreSQL, Redis, Kafka). Scans are rows of the scan-orchestrator (its fixture); their
// inventories are ingested into projects as the scanner-runner hands them over, from real SBOMs of
// ../shared/data/sbom and from small documents written here where a rule needs exact contents.
import { randomUUID } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { DirectoryArtefactStore } from "@sca/artefacts";
import { DirectoryService } from "@sca/proto/sca/identity/v1/directory_pb.ts";
import { InventoryService } from "@sca/proto/sca/projects/v1/inventory_pb.ts";
import { VulnerabilityMatchService } from "@sca/proto/sca/projects/v1/vulnerability_matches_pb.ts";
import {
  closeTogether,
  callAs,
  fixturesOf,
  ingestArtefact,
  sharedDir,
  startService,
  type TestService,
  uniqueName,
} from "@sca/testkit";
import { startTestGateway, type TestGateway } from "./harness.ts";

const SBOM_DIR = join(sharedDir(), "data", "sbom", "cyclonedx");
const JUICE_OLD = `${SBOM_DIR}/juice-shop-via-npm-flat.cdx-1.4.json`;
const JUICE_NEW = `${SBOM_DIR}/juice-shop-cyclonedx-npm.cdx-1.7.json`;

let identity: TestService;
let projects: TestService;
let scans: TestService;
let gateway: TestGateway;
let dir: string;
let teamId: string;
let member: string;
let outsider: string;
let admin: string;

interface Reply {
  status: number;
  contentType: string;
  json: Record<string, unknown>;
}

async function get(path: string, bearer?: string): Promise<Reply> {
  const res = await fetch(`${gateway.origin}${path}`, {
    headers: bearer ? { authorization: `Bearer ${bearer}` } : {},
  });
  const text = await res.text();
  const contentType = res.headers.get("content-type") ?? "";
  return {
    status: res.status,
    contentType,
    json: /json/.test(contentType) && text ? (JSON.parse(text) as Record<string, unknown>) : {},
  };
}

async function newProject(team = teamId): Promise<string> {
  const slug = `p-${randomUUID().slice(0, 8)}`;
  const res = await fetch(`${gateway.origin}/v1/projects`, {
    method: "POST",
    headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
    body: JSON.stringify({ name: `P ${slug}`, slug, team_id: team }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

interface ScanOpts {
  status?: "succeeded" | "failed";
  release?: string | null;
  ref?: string;
  createdAt?: Date;
  supersededAt?: Date | null;
}

/** A scan row in the scan-orchestrator. */
async function scanRow(projectId: string, opts: ScanOpts = {}): Promise<string> {
  const fixtures = await fixturesOf("scan-orchestrator");
  return fixtures.scan(scans.orm, { teamId, projectId, status: "succeeded", ...opts });
}

/** A succeeded scan whose inventory is `sbom`, ingested as the scanner-runner does. */
async function scanned(projectId: string, sbom: Uint8Array | string, opts: ScanOpts = {}): Promise<string> {
  const scanId = await scanRow(projectId, opts);
  const artefact = (await fixturesOf("scanner-runner")).inventoryArtefactOf(sbom);
  return ingestArtefact(projects.client(InventoryService), new DirectoryArtefactStore(dir), projectId, artefact, {
    scanId,
    release: opts.release ?? undefined,
  });
}

interface Part {
  name: string;
  version: string;
  license?: string;
  /** false: a component without purl. */
  purl?: boolean;
}

/** A CycloneDX 1.6 document: the primary component depends on each part; `children` adds edges under them. */
function bom(parts: Part[], children: Record<string, string[]> = {}): string {
  const ref = (p: Part) => `${p.name}@${p.version}`;
  const components = parts.map((p) => ({
    type: "library",
    "bom-ref": ref(p),
    name: p.name,
    version: p.version,
    ...(p.purl === false ? {} : { purl: `pkg:npm/${p.name}@${p.version}` }),
    ...(p.license ? { licenses: [{ license: { id: p.license } }] } : {}),
  }));
  const child = new Set(Object.values(children).flat());
  return JSON.stringify({
    bomFormat: "CycloneDX",
    specVersion: "1.6",
    version: 1,
    metadata: { component: { type: "application", "bom-ref": "app", name: "app", version: "1.0.0" } },
    components,
    dependencies: [
      { ref: "app", dependsOn: parts.map(ref).filter((r) => !child.has(r)) },
      ...Object.entries(children).map(([parent, dependsOn]) => ({ ref: parent, dependsOn })),
    ],
  });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "sca-inventory-views-"));
  const answerNamespace = `${uniqueName("identity_answers")}:`;
  const KAFKA_TOPIC_PREFIX = `${uniqueName("inventory_views")}.`;
  identity = await startService("identity", {
    env: { PASSWORD_RESET_BASE_URL: "https://portal.example.com/reset-password", KAFKA_TOPIC_PREFIX },
    seams: { apiKeyAnswerNamespace: answerNamespace },
  });
  projects = await startService("projects", {
    env: { IDENTITY_RPC_URL: identity.url!, KAFKA_TOPIC_PREFIX, ARTEFACT_DIR: dir },
  });
  scans = await startService("scan-orchestrator", {
    env: { PROJECTS_RPC_URL: projects.url!, KAFKA_TOPIC_PREFIX, ARTEFACT_DIR: dir },
  });
  gateway = await startTestGateway({
    identity: { url: identity.url!, answerNamespace },
    services: { projects: projects.url!, "scan-orchestrator": scans.url! },
  });
  const superAdmin = await callAs.superAdmin(randomUUID());
  const directory = identity.client(DirectoryService);
  const newTeam = async () => {
    const slug = `team-${randomUUID().slice(0, 8)}`;
    return (await directory.createTeam({ name: `Team ${slug}`, slug }, superAdmin)).team!.id;
  };
  teamId = await newTeam();
  const otherTeam = await newTeam();
  const fixtures = await fixturesOf("identity");
  const person = async (team: string, role: string) => {
    const id = await fixtures.user(identity.orm, { fullName: "Test Person" });
    await directory.addTeamMember({ teamId: team, userId: id, role }, superAdmin);
    return fixtures.accessToken(id);
  };
  member = await person(teamId, "viewer");
  outsider = await person(otherTeam, "team_admin");
  admin = await fixtures.accessToken(await fixtures.user(identity.orm, { fullName: "Admin", superAdmin: true }));
}, 120_000);

afterAll(async () => {
  await closeTogether([gateway, scans, projects, identity]);
  if (dir) await rm(dir, { recursive: true, force: true });
}, 90_000);

describe("GET /v1/projects/{id}/releases", () => {
  it("lists succeeded labelled scans newest first, superseded included, by exact label and normalised ref", async () => {
    const projectId = await newProject();
    const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute));
    const v1 = await scanRow(projectId, { release: "1.0", ref: "main", createdAt: at(1), supersededAt: at(2) });
    await scanRow(projectId, { ref: "main", createdAt: at(2) });
    const v2 = await scanRow(projectId, { release: "2.0", ref: "refs/heads/main", createdAt: at(3) });
    await scanRow(projectId, { status: "failed", release: "3.0", ref: "main", createdAt: at(4) });
    const path = (q = "") => `/v1/projects/${projectId}/releases${q}`;

    const all = await get(path(), member);
    expect(all.status).toBe(200);
    expect(all.json).toMatchObject({ total: 2, page: 1, page_size: 20 });
    const items = all.json.items as Record<string, unknown>[];
    expect(items.map((i) => i.id)).toEqual([v2, v1]);
    expect(items[1]).toMatchObject({ project_id: projectId, status: "succeeded", release: "1.0", ref: "main" });
    expect(items[1]!.superseded_at).not.toBeNull();

    expect((await get(path("?release=%202.0%20"), member)).json).toMatchObject({ total: 1, items: [{ id: v2 }] });
    expect((await get(path("?release=9.9"), member)).json).toMatchObject({ total: 0, items: [] });
    expect((await get(path("?ref=main&size=1&page=2"), member)).json).toMatchObject({
      total: 2,
      page: 2,
      page_size: 1,
      items: [{ id: v1 }],
    });
    expect((await get(path("?ref=refs/tags/main"), member)).json).toMatchObject({ total: 0 });
    for (const q of ["?size=0", "?size=101", "?page=0", "?ref=a..b"]) {
      const refused = await get(path(q), member);
      expect(refused.status).toBe(422);
      expect(refused.contentType).toMatch(/problem\+json/);
    }
    expect((await get(path("?size=100"), member)).status).toBe(200);
  });

  it("answers callers as the project's scan list does", async () => {
    const projectId = await newProject();
    for (const bearer of [outsider, undefined]) {
      const releases = await get(`/v1/projects/${projectId}/releases`, bearer);
      expect(releases.status).toBe((await get(`/v1/projects/${projectId}/scans`, bearer)).status);
      expect(releases.status).toBe(bearer ? 403 : 401);
    }
    expect((await get(`/v1/projects/${randomUUID()}/releases`, member)).status).toBe(404);
    expect((await get(`/v1/projects/${projectId}/releases`, admin)).json).toMatchObject({ total: 0 });
  });
});

describe("GET /v1/projects/{id}/dependency-graph", () => {
  let projectId: string;
  let oldScan: string;
  let newScan: string;

  beforeAll(async () => {
    projectId = await newProject();
    oldScan = await scanned(projectId, await readFile(JUICE_OLD), { release: "14.0", ref: "main" });
    newScan = await scanned(projectId, await readFile(JUICE_NEW), { release: "15.0", ref: "main" });
  }, 120_000);

  const path = (q = "") => `/v1/projects/${projectId}/dependency-graph${q}`;

  it("answers the newest snapshot's whole graph: the primary component as root, breadth-first nodes", async () => {
    const r = await get(path(), member);
    expect(r.status).toBe(200);
    const g = r.json as {
      scan_id: string;
      root: { name: string } | null;
      nodes: { component_id: string; depth: number | null; direct: boolean | null; name: string }[];
      edges: { from: string | null; to: string; scope: string | null }[];
      [k: string]: unknown;
    };
    expect(g.scan_id).toBe(newScan);
    expect(g.root?.name).toBeTruthy();
    const components = await get(`/v1/projects/${projectId}/components?limit=1`, member);
    expect(g).toMatchObject({
      node_cap: 5000,
      truncated: false,
      node_count: components.json.total,
      total_node_count: components.json.total,
      edge_count: g.edges.length,
    });
    expect(g.nodes).toHaveLength(g.node_count as number);
    expect(g.total_edge_count).toBe(g.edge_count);
    // Breadth-first: depth never decreases, components the root does not reach come last.
    const depths = g.nodes.map((n) => n.depth ?? Number.MAX_SAFE_INTEGER);
    expect([...depths].sort((a, b) => a - b)).toEqual(depths);
    const ids = new Set(g.nodes.map((n) => n.component_id));
    expect(ids.size).toBe(g.nodes.length);
    for (const e of g.edges) {
      expect(ids.has(e.to)).toBe(true);
      if (e.from !== null) expect(ids.has(e.from)).toBe(true);
    }
    // The root's edges lead to the direct dependencies.
    const direct = new Set(g.nodes.filter((n) => n.direct).map((n) => n.component_id));
    expect(direct.size).toBeGreaterThan(0);
    expect(new Set(g.edges.filter((e) => e.from === null).map((e) => e.to))).toEqual(direct);
  });

  it("anchors on scan_id (winning over release) or release, 404 for what the project has no snapshot of", async () => {
    expect((await get(path(`?scan_id=${oldScan}&release=15.0`), member)).json.scan_id).toBe(oldScan);
    expect((await get(path("?release=%2014.0%20"), member)).json.scan_id).toBe(oldScan);
    expect((await get(path("?release=15.0"), member)).json.scan_id).toBe(newScan);
    const otherProject = await newProject();
    const elsewhere = await scanned(otherProject, bom([{ name: "left-pad", version: "1.0.0" }]));
    const failed = await scanRow(projectId, { status: "failed", release: "16.0" });
    for (const q of [`?scan_id=${elsewhere}`, `?scan_id=${failed}`, `?scan_id=${randomUUID()}`, "?release=16.0"]) {
      const missing = await get(path(q), member);
      expect(missing.status).toBe(404);
      expect(missing.contentType).toMatch(/problem\+json/);
    }
    expect((await get(path("?scan_id=nope"), member)).status).toBe(422);
    expect((await get(path(), outsider)).status).toBe(404);
    expect((await get(`/v1/projects/${randomUUID()}/dependency-graph`, member)).status).toBe(404);
    expect((await get(path())).status).toBe(401);
    const unscanned = await get(`/v1/projects/${await newProject()}/dependency-graph`, member);
    expect(unscanned.json).toMatchObject({ scan_id: null, root: null, nodes: [], edges: [], node_count: 0 });
  });

  it("keeps the top 5000 nodes of a larger tree breadth-first, and only the edges between them", async () => {
    // 100 direct dependencies of 59 children each: 6000 components, 6000 edges.
    const pad = (n: number, w: number) => String(n).padStart(w, "0");
    const parts: Part[] = [];
    const children: Record<string, string[]> = {};
    for (let d = 0; d < 100; d += 1) {
      parts.push({ name: `d-${pad(d, 3)}`, version: "1.0.0" });
      children[`d-${pad(d, 3)}@1.0.0`] = [];
      for (let c = 0; c < 59; c += 1) {
        parts.push({ name: `c-${pad(d, 3)}-${pad(c, 2)}`, version: "1.0.0" });
        children[`d-${pad(d, 3)}@1.0.0`]!.push(`c-${pad(d, 3)}-${pad(c, 2)}@1.0.0`);
      }
    }
    const big = await newProject();
    await scanned(big, bom(parts, children));
    const g = (await get(`/v1/projects/${big}/dependency-graph`, member)).json as {
      nodes: { name: string; component_id: string; depth: number }[];
      edges: { from: string | null; to: string }[];
      [k: string]: unknown;
    };
    expect(g).toMatchObject({
      node_cap: 5000,
      node_count: 5000,
      total_node_count: 6000,
      edge_count: 5000,
      total_edge_count: 6000,
      truncated: true,
    });
    const depth1 = g.nodes.filter((n) => n.depth === 1).map((n) => n.name);
    expect(depth1).toHaveLength(100);
    const allChildren = parts.filter((p) => p.name.startsWith("c-")).map((p) => p.name);
    // The kept children are the first 4900 of depth 2 (ties by name).
    expect(g.nodes.filter((n) => n.depth === 2).map((n) => n.name)).toEqual(allChildren.slice(0, 4900));
    const kept = new Set(g.nodes.map((n) => n.component_id));
    expect(g.edges.filter((e) => e.from === null)).toHaveLength(100);
    for (const e of g.edges) {
      expect(kept.has(e.to)).toBe(true);
      if (e.from !== null) expect(kept.has(e.from)).toBe(true);
    }
  }, 120_000);
});

describe("GET /v1/projects/{id}/releases/diff", () => {
  let projectId: string;
  let base: string;
  let target: string;

  beforeAll(async () => {
    projectId = await newProject();
    base = await scanned(
      projectId,
      bom([
        { name: "same", version: "1.0.0", license: "MIT" },
        { name: "bumped", version: "1.0.0", license: "MIT" },
        { name: "relicensed", version: "1.0.0", license: "Apache-2.0" },
        { name: "dropped", version: "1.0.0", license: "BSD-3-Clause" },
        { name: "twice", version: "1.0.0", license: "MIT" },
        { name: "twice", version: "2.0.0", license: "MIT" },
        { name: "split", version: "1.0.0", license: "MIT" },
        { name: "no-purl", version: "1.0.0", purl: false },
      ]),
      { release: "1.0" },
    );
    target = await scanned(
      projectId,
      bom([
        { name: "same", version: "1.0.0", license: "MIT" },
        { name: "bumped", version: "1.1.0", license: "MIT" },
        { name: "relicensed", version: "1.0.0", license: "GPL-2.0-only" },
        { name: "fresh", version: "0.1.0", license: "ISC" },
        { name: "twice", version: "2.0.0", license: "MIT" },
        { name: "twice", version: "3.0.0", license: "MIT" },
        { name: "split", version: "2.0.0", license: "MIT" },
        { name: "split", version: "3.0.0", license: "MIT" },
        { name: "no-purl", version: "2.0.0", purl: false },
      ]),
      { release: "2.0" },
    );
  }, 60_000);

  const path = (b: string, t: string) => `/v1/projects/${projectId}/releases/diff?base=${b}&target=${t}`;
  type Side = { name: string; version: string | null; license: string | null; purl: string | null };
  interface Diff {
    base: Record<string, unknown>;
    target: Record<string, unknown>;
    components: { added: Side[]; removed: Side[]; changed: { base: Side; target: Side; changes: string[] }[] };
    licenses: { added: unknown[]; removed: unknown[] };
    vulnerabilities: unknown;
    summary: Record<string, number>;
    truncated: boolean;
    list_cap: number;
  }
  const named = (sides: Side[]) => sides.map((s) => `${s.name}@${s.version}`);

  it("classifies added, removed and changed components and license ids, with whole counts", async () => {
    const r = await get(path(base, target), member);
    expect(r.status).toBe(200);
    const d = r.json as unknown as Diff;
    expect(d.base).toMatchObject({ scan_id: base, release: "1.0", component_count: 8 });
    expect(d.target).toMatchObject({ scan_id: target, release: "2.0", component_count: 9 });
    // One component of an identity on each side is a version change; two on a side cannot be paired.
    expect(named(d.components.added)).toEqual(["fresh@0.1.0", "split@2.0.0", "split@3.0.0"]);
    expect(named(d.components.removed)).toEqual(["dropped@1.0.0", "split@1.0.0"]);
    expect(
      d.components.changed.map((c) => [`${c.base.name}@${c.base.version}`, c.target.version, c.changes.join("+")]),
    ).toEqual([
      ["bumped@1.0.0", "1.1.0", "version"],
      ["no-purl@1.0.0", "2.0.0", "version"],
      ["relicensed@1.0.0", "1.0.0", "license"],
      ["twice@1.0.0", "3.0.0", "version"],
    ]);
    expect(d.components.changed[2]).toMatchObject({
      base: { license: "Apache-2.0", purl: "pkg:npm/relicensed@1.0.0" },
      target: { license: "GPL-2.0-only" },
    });
    expect(d.licenses).toEqual({
      added: [
        { license_id: "GPL-2.0-only", component_count: 1 },
        { license_id: "ISC", component_count: 1 },
      ],
      removed: [
        { license_id: "Apache-2.0", component_count: 1 },
        { license_id: "BSD-3-Clause", component_count: 1 },
      ],
    });
    expect(d.vulnerabilities).toEqual({ added: [], removed: [] });
    expect(d.summary).toEqual({
      components_added: 3,
      components_removed: 2,
      components_changed: 4,
      components_unchanged: 2,
      licenses_added: 2,
      licenses_removed: 2,
      vulnerabilities_added: 0,
      vulnerabilities_removed: 0,
    });
    expect(d).toMatchObject({ truncated: false, list_cap: 1000 });
  });

  it("answers an empty diff for equal scans, and the mirror image when the sides swap", async () => {
    const same = (await get(path(target, target), member)).json as unknown as Diff;
    expect(same.components).toEqual({ added: [], removed: [], changed: [] });
    expect(same.licenses).toEqual({ added: [], removed: [] });
    expect(same.summary).toMatchObject({ components_added: 0, components_changed: 0, components_unchanged: 9 });
    const back = (await get(path(target, base), member)).json as unknown as Diff;
    expect(named(back.components.added)).toEqual(["dropped@1.0.0", "split@1.0.0"]);
    expect(named(back.components.removed)).toEqual(["fresh@0.1.0", "split@2.0.0", "split@3.0.0"]);
    expect(back.components.changed).toHaveLength(4);
  });

  it("diffs two real releases consistently with their component lists", async () => {
    const real = await newProject();
    const old = await scanned(real, await readFile(JUICE_OLD), { release: "old" });
    const cur = await scanned(real, await readFile(JUICE_NEW), { release: "new" });
    const d = (await get(`/v1/projects/${real}/releases/diff?base=${old}&target=${cur}`, member))
      .json as unknown as Diff;
    const s = d.summary;
    const count = (side: Record<string, unknown>) => side.component_count as number;
    expect(s.components_unchanged! + s.components_added! + s.components_changed!).toBe(count(d.target));
    expect(s.components_unchanged! + s.components_removed! + s.components_changed!).toBe(count(d.base));
    expect(s.components_added! + s.components_removed! + s.components_changed!).toBeGreaterThan(0);
    expect(d.components.added).toHaveLength(Math.min(s.components_added!, 1000));
    const purls = async (scan: string) => {
      const rows: string[] = [];
      for (let offset = 0; ; offset += 500) {
        const page = await get(`/v1/projects/${real}/components?scan_id=${scan}&limit=500&offset=${offset}`, member);
        const items = page.json.items as { purl: string | null }[];
        rows.push(...items.flatMap((i) => (i.purl ? [i.purl] : [])));
        if (items.length < 500) return new Set(rows);
      }
    };
    const [basePurls, targetPurls] = [await purls(old), await purls(cur)];
    for (const c of d.components.added) if (c.purl) expect(basePurls.has(c.purl)).toBe(false);
    for (const c of d.components.removed) if (c.purl) expect(targetPurls.has(c.purl)).toBe(false);
    for (const c of d.components.changed) expect(c.changes.length).toBeGreaterThan(0);
  }, 120_000);

  it("lists the vulnerabilities with an open finding in one scan only, as the runner's verdicts recorded them", async () => {
    const tracked = await newProject();
    const fixtures = await fixturesOf("projects");
    const runner = await callAs.service("scanner-runner");
    const matches = projects.client(VulnerabilityMatchService);
    // The base: lodash 4.17.20 (two advisories, kept in the target) and minimist 1.2.5 (prototype pollution, fixed
    // in 1.2.6; gone from the target).
    const from = await scanned(
      tracked,
      bom([
        { name: "lodash", version: "4.17.20" },
        { name: "minimist", version: "1.2.5" },
      ]),
    );
    const shared = fixtures.scanMatches(tracked, from);
    await matches.recordScanMatches(
      {
        projectId: tracked,
        scanId: from,
        databaseVersion: "db-1",
        vulnerabilities: [
          ...shared.vulnerabilities!,
          {
            id: "CVE-2021-44906",
            aliases: ["GHSA-xvch-5gv4-984h"],
            summary: "Prototype Pollution in minimist",
            severity: "critical",
            cvssScore: 9.8,
          },
        ],
        verdicts: [
          shared.verdicts!.find((v) => v.package?.name === "lodash")!,
          {
            package: { ecosystem: "npm", name: "minimist", version: "1.2.5" },
            vulnerabilities: [{ vulnerabilityId: "CVE-2021-44906", fixedVersions: ["1.2.6"] }],
          },
        ],
      },
      runner,
    );
    // The target: the findings fixture (jackson-databind, git, lodash 4.17.20, log4j-core, ...) and its verdicts.
    const to = await ingestArtefact(
      projects.client(InventoryService),
      new DirectoryArtefactStore(dir),
      tracked,
      fixtures.findingsArtefact(),
      { scanId: await scanRow(tracked) },
    );
    await matches.recordScanMatches(fixtures.scanMatches(tracked, to), runner);

    const d = (await get(`/v1/projects/${tracked}/releases/diff?base=${from}&target=${to}`, member))
      .json as unknown as Diff;
    expect(d.vulnerabilities).toEqual({
      added: ["CVE-2014-123456", "CVE-2020-25649", "CVE-2021-44228"],
      removed: ["CVE-2021-44906"],
    });
    expect(d.summary).toMatchObject({ vulnerabilities_added: 3, vulnerabilities_removed: 1 });
    expect(d.truncated).toBe(false);
    const back = (await get(`/v1/projects/${tracked}/releases/diff?base=${to}&target=${from}`, member))
      .json as unknown as Diff;
    expect(back.vulnerabilities).toEqual({
      added: ["CVE-2021-44906"],
      removed: ["CVE-2014-123456", "CVE-2020-25649", "CVE-2021-44228"],
    });
    expect(back.summary).toMatchObject({ vulnerabilities_added: 1, vulnerabilities_removed: 3 });
    const same = (await get(`/v1/projects/${tracked}/releases/diff?base=${to}&target=${to}`, member))
      .json as unknown as Diff;
    expect(same.vulnerabilities).toEqual({ added: [], removed: [] });
  }, 60_000);

  it("answers at most 1000 rows per list, truncated, with the whole counts in the summary", async () => {
    const grown = await newProject();
    const kept = { name: "kept", version: "1.0.0", license: "MIT" };
    const from = await scanned(grown, bom([kept]));
    const many = Array.from({ length: 1001 }, (_, i) => ({
      name: `new-${String(i).padStart(4, "0")}`,
      version: "1.0.0",
      license: `LicenseRef-L${String(i).padStart(4, "0")}`,
    }));
    const to = await scanned(grown, bom([kept, ...many]));
    const d = (await get(`/v1/projects/${grown}/releases/diff?base=${from}&target=${to}`, member))
      .json as unknown as Diff;
    expect(d).toMatchObject({ truncated: true, list_cap: 1000 });
    expect(named(d.components.added)).toEqual(many.slice(0, 1000).map((m) => `${m.name}@1.0.0`));
    expect(d.licenses.added).toHaveLength(1000);
    expect(d.summary).toMatchObject({
      components_added: 1001,
      components_removed: 0,
      components_changed: 0,
      components_unchanged: 1,
      licenses_added: 1001,
      licenses_removed: 0,
    });
    const back = (await get(`/v1/projects/${grown}/releases/diff?base=${to}&target=${from}`, member))
      .json as unknown as Diff;
    expect(back.components.removed).toHaveLength(1000);
    expect(back).toMatchObject({ truncated: true, summary: { components_removed: 1001, licenses_removed: 1001 } });
  }, 60_000);

  it("is 404 for scans that are not succeeded scans of the project, and for callers who may not read it", async () => {
    const otherProject = await newProject();
    const elsewhere = await scanned(otherProject, bom([{ name: "left-pad", version: "1.0.0" }]));
    const failed = await scanRow(projectId, { status: "failed" });
    for (const [b, t] of [
      [base, elsewhere],
      [elsewhere, target],
      [base, failed],
      [randomUUID(), target],
    ]) {
      const missing = await get(path(b!, t!), member);
      expect(missing.status).toBe(404);
      expect(missing.contentType).toMatch(/problem\+json/);
    }
    expect((await get(path(base, target), outsider)).status).toBe(404);
    expect((await get(path(base, target))).status).toBe(401);
    for (const q of [`?base=${base}`, `?target=${target}`, `?base=x&target=${target}`, ""])
      expect((await get(`/v1/projects/${projectId}/releases/diff${q}`, member)).status).toBe(422);
  });
});
