// Reads across the portfolio through a real gateway, projects and identity (docs/dashboards.md): a real SBOM
// (juice-shop's) ingested into a project, then GET /v1/components/{component_id}, GET /v1/license_findings/{id}
// (the detail of a row of the license list, under its access rule) and the portfolio search, whose dependency path
// is checked against the project's own dependency graph (GET .../dependency-graph), and its CSV.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import semver from "semver";
import type { ProjectsStack } from "./projects-stack.ts";
import { startJuiceShopProject, type JuiceShopProject } from "./support/juice-shop-project.ts";

let juice: JuiceShopProject;
let s: ProjectsStack;
let member: string;
let outsider: string;
let admin: string;
let projectId: string;
let scanId: string;

type Node = { id: string; component_id: string; name: string; version: string | null; depth: number | null };
type Graph = {
  root: { name: string | null; version: string | null } | null;
  nodes: Node[];
  edges: { from: string | null; to: string }[];
};
let graph: Graph;

beforeAll(async () => {
  juice = await startJuiceShopProject({ name: "Juice", slug: "juice-portfolio" });
  ({ stack: s, member, outsider, projectId, scanId } = juice);
  admin = await s.superAdminToken();
  const r = await s.request("GET", `/v1/projects/${projectId}/dependency-graph`, { bearer: member });
  expect(r.status).toBe(200);
  graph = r.json as unknown as Graph;
}, 60_000);

afterAll(async () => {
  await juice?.close();
});

const label = (n: { name: string | null; version: string | null }) => (n.version ? `${n.name}@${n.version}` : n.name);

describe("GET /v1/components/{component_id}", () => {
  it("answers the component in each readable project's newest snapshot, 404 to a caller who can read none", async () => {
    const node = graph.nodes.find((n) => n.depth === 1)!;
    const r = await s.request("GET", `/v1/components/${node.component_id}`, { bearer: member });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ component_id: node.component_id, name: node.name, truncated: false });
    const projects = r.json.projects as Record<string, unknown>[];
    expect(projects).toHaveLength(1);
    expect(projects[0]).toMatchObject({ project_id: projectId, project_name: "Juice", scan_id: scanId });
    expect(projects[0]!.component).toMatchObject({ id: node.id, component_id: node.component_id });
    expect(projects[0]!.vulnerabilities).toEqual([]);
    expect((await s.request("GET", `/v1/components/${node.component_id}`, { bearer: admin })).status).toBe(200);
    const hidden = await s.request("GET", `/v1/components/${node.component_id}`, { bearer: outsider });
    expect(hidden.status).toBe(404);
    expect(hidden.headers!.get("content-type")).toContain("application/problem+json");
    expect((await s.request("GET", `/v1/components/${randomUUID()}`, { bearer: admin })).status).toBe(404);
  });
});

describe("GET /v1/license_findings/{finding_id}", () => {
  it("answers the row the license list shows, under the list's access rule", async () => {
    const list = await s.request("GET", `/v1/projects/${projectId}/licenses?limit=3`, { bearer: member });
    const row = (list.json.items as Record<string, unknown>[])[2]!;
    const r = await s.request("GET", `/v1/license_findings/${row.id as string}`, { bearer: member });
    expect(r.status).toBe(200);
    expect(r.json).toEqual(row);
    expect((await s.request("GET", `/v1/license_findings/${row.id as string}`, { bearer: outsider })).status).toBe(404);
    expect((await s.request("GET", `/v1/license_findings/${randomUUID()}`, { bearer: member })).status).toBe(404);
  });
});

describe("GET /v1/portfolio/search", () => {
  it("finds a transitive dependency with its path from the root, as the dependency graph has it", async () => {
    const deepest = Math.max(...graph.nodes.map((n) => n.depth ?? 0));
    const target = graph.nodes.find((n) => n.depth === Math.min(deepest, 3))!;
    expect(target.depth).toBeGreaterThanOrEqual(2);
    const r = await s.request(
      "GET",
      `/v1/portfolio/search?package=${encodeURIComponent(target.name)}&version=${encodeURIComponent(target.version!)}`,
      { bearer: member },
    );
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ page: 1, page_size: 25 });
    const hit = (r.json.items as Record<string, unknown>[]).find((h) => h.component_row_id === target.id)!;
    expect(hit).toMatchObject({ project_id: projectId, scan_id: scanId, name: target.name, version: target.version });
    const path = hit.dependency_path as string[];
    // The root, then one component per level down to the target.
    expect(path).toHaveLength(target.depth! + 1);
    expect(path[0]).toBe(label(graph.root!));
    expect(path.at(-1)).toBe(label(target));
    // Each step is an edge of the graph: some edge joins a component of each label to one of the next.
    const byId = new Map(graph.nodes.map((n) => [n.component_id, label(n)]));
    const edges = new Set(graph.edges.map((e) => `${e.from === null ? path[0] : byId.get(e.from)}>${byId.get(e.to)}`));
    for (let i = 1; i < path.length; i++) expect(edges.has(`${path[i - 1]}>${path[i]}`)).toBe(true);
    // The outsider reads no project of the portfolio: an empty page.
    const none = await s.request("GET", `/v1/portfolio/search?package=${encodeURIComponent(target.name)}`, {
      bearer: outsider,
    });
    expect(none.json).toMatchObject({ items: [], total: 0 });
  });

  it("finds the versions of a package in a range, in npm's order as node-semver judges it", async () => {
    const versions = new Map<string, Set<string>>();
    for (const n of graph.nodes)
      if (n.version && semver.valid(n.version))
        versions.set(n.name, (versions.get(n.name) ?? new Set()).add(n.version));
    const [name, held] = [...versions].sort((a, b) => b[1].size - a[1].size || (a[0] < b[0] ? -1 : 1))[0]!;
    const sorted = [...held].sort(semver.compare);
    expect(sorted.length).toBeGreaterThanOrEqual(3);
    // From the second lowest version up to (not including) the highest: both ends of the range cut something off.
    const [low, high] = [sorted[1]!, sorted.at(-1)!];
    const expected = graph.nodes
      .filter((n) => n.name === name && n.version && semver.satisfies(n.version, `>=${low} <${high}`))
      .map((n) => n.id)
      .sort();
    for (const range of [`>=${low}, <${high}`, `[${low},${high})`]) {
      const r = await s.request(
        "GET",
        `/v1/portfolio/search?package=${encodeURIComponent(name)}&version=${encodeURIComponent(range)}&size=100`,
        { bearer: member },
      );
      expect(r.status).toBe(200);
      const rows = (r.json.items as Record<string, unknown>[]).map((h) => h.component_row_id as string).sort();
      expect([range, rows]).toEqual([range, expected]);
      expect(r.json.total).toBe(expected.length);
    }
    expect(expected.length).toBeGreaterThan(0);
    const caret = await s.request("GET", `/v1/portfolio/search?package=${encodeURIComponent(name)}&version=%5E1.0.0`, {
      bearer: member,
    });
    expect(caret.status).toBe(422);
  });

  it("pages by page and size (25 by default, 100 at most), searches by license, and exports the rows as CSV", async () => {
    const all = await s.request("GET", "/v1/portfolio/search?license=MIT&size=100", { bearer: member });
    expect(all.status).toBe(200);
    const total = all.json.total as number;
    expect(total).toBeGreaterThan(25);
    const items = all.json.items as Record<string, unknown>[];
    expect(items.every((h) => String(h.license).includes("MIT"))).toBe(true);
    const second = await s.request("GET", "/v1/portfolio/search?license=MIT&page=2&size=10", { bearer: member });
    expect((second.json.items as Record<string, unknown>[]).map((h) => h.component_row_id)).toEqual(
      items.slice(10, 20).map((h) => h.component_row_id),
    );
    expect((await s.request("GET", "/v1/portfolio/search?license=MIT&size=101", { bearer: member })).status).toBe(422);
    expect((await s.request("GET", "/v1/portfolio/search?license=MIT&package=x", { bearer: member })).status).toBe(422);
    expect((await s.request("GET", "/v1/portfolio/search", { bearer: member })).status).toBe(422);
    const csv = await s.request("GET", "/v1/portfolio/search/export.csv?license=MIT", { bearer: member });
    expect(csv.status).toBe(200);
    expect(csv.headers!.get("content-type")).toContain("text/csv");
    const lines = csv.text.trimEnd().split("\r\n");
    expect(lines[0]).toBe(
      "project_id,project_name,team_id,scan_id,release,component_id,name,version,purl,license,direct," +
        "dependency_path,vulnerabilities",
    );
    expect(lines).toHaveLength(total + 1);
  });
});
