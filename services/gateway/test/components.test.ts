// The component routes through a real gateway, projects and identity: an inventory ingested as the scanner-runner
// hands it over, then read as JSON (list, detail) and CSV, with the query's rules and 404 hiding.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { fixturesOf } from "@sca/testkit";
import { column, rawQuery, rawStatement } from "@sca/db";
import type { ProjectsStack } from "./projects-stack.ts";
import { startJuiceShopProject, type JuiceShopProject } from "./support/juice-shop-project.ts";

let juice: JuiceShopProject;
let s: ProjectsStack;
let member: string;
let outsider: string;
let projectId: string;
let scanId: string;

beforeAll(async () => {
  juice = await startJuiceShopProject({ name: "Juice", slug: "juice", release: "17.0" });
  ({ stack: s, member, outsider, projectId, scanId } = juice);
}, 60_000);

afterAll(async () => {
  await juice?.close();
});

const path = (query = "") => `/v1/projects/${projectId}/components${query}`;

describe("GET /v1/projects/{id}/components", () => {
  it("answers the offset envelope of the newest snapshot, sorted by name", async () => {
    const r = await s.request("GET", path(), { bearer: member });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ limit: 50, offset: 0 });
    const items = r.json.items as Record<string, unknown>[];
    expect(items).toHaveLength(50);
    expect(r.json.total as number).toBeGreaterThan(50);
    expect(items[0]).toMatchObject({ project_id: projectId, scan_id: scanId, severity_max: null, obligations: [] });
    expect(items[0]).not.toHaveProperty("raw_data");
    const names = items.map((i) => i.name as string);
    expect([...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))).toEqual(names);
  });

  it("takes repeated and bracketed list parameters, drops unknown scopes, and checks its bounds", async () => {
    const all = (await s.request("GET", path("?limit=1"), { bearer: member })).json.total;
    const both = await s.request(
      "GET",
      path(
        "?limit=1&dependency_scope=required&dependency_scope[]=optional&dependency_scope=unspecified&dependency_scope=bogus",
      ),
      { bearer: member },
    );
    expect(both.json.total).toBe(all);
    const none = await s.request("GET", path("?dependency_scope=bogus"), { bearer: member });
    expect(none.json).toMatchObject({ total: 0, items: [] });
    // An offset past int32 once failed to encode on the way to projects (500).
    for (const q of [
      "?limit=0",
      "?limit=501",
      "?offset=-1",
      "?offset=2147483648",
      "?sort=purl",
      "?order=up",
      "?direct=yes",
    ])
      expect((await s.request("GET", path(q), { bearer: member })).status).toBe(422);
    expect((await s.request("GET", path("?limit=500"), { bearer: member })).status).toBe(200);
  });

  it("anchors on scan_id or release, 404 for one the project does not have and for callers who may not read it", async () => {
    expect((await s.request("GET", path(`?release=17.0&limit=1`), { bearer: member })).status).toBe(200);
    expect((await s.request("GET", path(`?scan_id=${scanId}&limit=1`), { bearer: member })).status).toBe(200);
    expect((await s.request("GET", path("?release=0.1"), { bearer: member })).status).toBe(404);
    expect((await s.request("GET", path(`?scan_id=${randomUUID()}`), { bearer: member })).status).toBe(404);
    // The CSV export is a server stream: its 404 before the first row once reached the edge as an internal error.
    for (const q of ["?release=0.1", `?scan_id=${randomUUID()}`]) {
      const csv = await s.request("GET", path(`/export.csv${q}`), { bearer: member });
      expect([q, csv.status, csv.contentType]).toEqual([q, 404, expect.stringMatching(/problem\+json/)]);
    }
    const hidden = await s.request("GET", path(), { bearer: outsider });
    expect(hidden.status).toBe(404);
    expect(hidden.contentType).toMatch(/problem\+json/);
    expect((await s.request("GET", path())).status).toBe(401);
  });

  it("answers one component with raw_data, and the CSV holds the list's rows", async () => {
    const page = await s.request("GET", path("?search=express&limit=500"), { bearer: member });
    const items = page.json.items as Record<string, unknown>[];
    expect(items.length).toBeGreaterThan(0);
    const one = await s.request("GET", path(`/${items[0]!.component_id as string}`), { bearer: member });
    expect(one.status).toBe(200);
    expect(one.json).toMatchObject({ id: items[0]!.id, name: items[0]!.name });
    expect(typeof one.json.raw_data).toBe("object");
    expect((await s.request("GET", path(`/${randomUUID()}`), { bearer: member })).status).toBe(404);

    const csv = await s.request("GET", path("/export.csv?search=express&sort=-license"), { bearer: member });
    expect(csv.status).toBe(200);
    expect(csv.contentType).toMatch(/text\/csv/);
    const lines = csv.text.trim().split("\r\n");
    expect(lines[0]!.split(",")[0]).toBe("id");
    expect(lines.slice(1).map((l) => l.split(",")[0])).toEqual(items.map((i) => i.id));
  });
});

describe("pages kept at the edge (ADR 12)", () => {
  const write = async (sql: string, params: unknown[]) =>
    (await fixturesOf("projects")).write(s.projects.orm, sql, params);
  /** Runs `inner` while projects cannot read the project's snapshots (a lock its every list read would wait on). */
  const withoutProjectsReads = (inner: () => Promise<void>) =>
    s.projects.orm.em.fork().transactional(async (em) => {
      await rawStatement(em, "lock table inventory_snapshots in access exclusive mode");
      await inner();
    });
  const within = <T>(ms: number, p: Promise<T>) =>
    Promise.race([p, new Promise<never>((_, no) => setTimeout(() => no(new Error(`no answer in ${ms} ms`)), ms))]);

  it("answers a repeated read without projects, and the changed page once a write commits", async () => {
    const q = path("?limit=3&sort=name");
    const capitals = `/v1/projects/${projectId.toUpperCase()}/components?limit=3&sort=name`;
    const first = await s.request("GET", q, { bearer: member });
    expect((await s.request("GET", capitals, { bearer: member })).json).toEqual(first.json);
    const name = (first.json.items as { name: string }[])[0]!.name;
    await withoutProjectsReads(async () => {
      const again = await within(5_000, s.request("GET", q, { bearer: member }));
      expect(again.json).toEqual(first.json);
    });
    const [{ description } = { description: null }] = await rawQuery(
      s.projects.orm.em.fork(),
      "select description from inventory_components where scan_id = ? and name = ?",
      [scanId, name],
      { description: column.text.nullable },
    );
    const setDescription = (text: string | null) =>
      write("update inventory_components set description = ? where scan_id = ? and name = ?", [text, scanId, name]);
    await setDescription("changed after the page was kept");
    for (const spelling of [q, capitals]) {
      const changed = await s.request("GET", spelling, { bearer: member });
      expect((changed.json.items as { description: string | null }[])[0]!.description).toBe(
        "changed after the page was kept",
      );
    }
    await setDescription(description);
    expect((await s.request("GET", q, { bearer: member })).json).toEqual(first.json);
  });

  it("refuses a write to the pages' tables outside a transaction, which no fence would cover", async () => {
    await expect(
      s.projects.orm.em
        .fork()
        .getConnection()
        .execute("update inventory_components set severity_max = null where scan_id = ?", [scanId]),
    ).rejects.toThrow(/outside a transaction/);
  });

  it("answers only callers projects let read the project, and nobody it no longer lets", async () => {
    const q = path("?limit=2");
    expect((await s.request("GET", q, { bearer: member })).status).toBe(200);
    expect((await s.request("GET", q, { bearer: outsider })).status).toBe(404);
    const [{ teamId } = { teamId: "" }] = await rawQuery(
      s.projects.orm.em.fork(),
      "select team_id from projects where id = ?",
      [projectId],
      { teamId: column.text },
    );
    const elsewhere = await s.team();
    await write("update projects set team_id = ? where id = ?", [elsewhere.id, projectId]);
    try {
      expect((await s.request("GET", q, { bearer: member })).status).toBe(404);
    } finally {
      await write("update projects set team_id = ? where id = ?", [teamId, projectId]);
    }
    expect((await s.request("GET", q, { bearer: member })).status).toBe(200);
  });
});
