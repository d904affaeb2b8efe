// The project routes end to end (gateway, projects, identity; real PostgreSQL, Redis, Kafka): every status code of
// the spec's Projects table, the list's paging and filters, the PATCH rules, the batch and the CSV export.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { randomUUID } from "node:crypto";
import { csvLine } from "../src/http/csv.ts";
import { CSV_COLUMNS } from "../src/routes/projects/views.ts";
import { startProjectsStack, type ProjectsStack } from "./projects-stack.ts";
import type { Reply } from "./support/gateway-request.ts";

let s: ProjectsStack;
let team: { id: string; name: string };
let other: { id: string; name: string };
let viewer: string;
let developer: string;
let teamAdmin: string;
let outsider: string;
let admin: string;

const slug = () => `p-${randomUUID().slice(0, 8)}`;
const body = (teamId = team.id, extra: Record<string, unknown> = {}) => ({
  name: `Project ${slug()}`,
  slug: slug(),
  team_id: teamId,
  ...extra,
});

function expectProblem(r: Reply, status: number): Record<string, unknown> {
  expect({ status: r.status, contentType: r.contentType }).toEqual({
    status,
    contentType: expect.stringMatching(/^application\/problem\+json/),
  });
  expect(r.json.status).toBe(status);
  return r.json;
}

async function create(bearer = developer, b: Record<string, unknown> = body()): Promise<Record<string, unknown>> {
  const r = await s.request("POST", "/v1/projects", { bearer, body: b });
  expect(r.status).toBe(201);
  return r.json;
}

beforeAll(async () => {
  s = await startProjectsStack();
  team = await s.team();
  other = await s.team();
  viewer = (await s.person([[team.id, "viewer"]])).token;
  developer = (await s.person([[team.id, "developer"]], "Dana Developer")).token;
  teamAdmin = (await s.person([[team.id, "team_admin"]])).token;
  outsider = (await s.person([[other.id, "team_admin"]])).token;
  admin = await s.superAdminToken();
}, 60_000);
afterAll(() => s?.close());

describe("POST /v1/projects", () => {
  it("201 with every field of the resource", async () => {
    const p = await create(
      developer,
      body(team.id, { description: "API", declared_license: "MIT", distribution_model: "saas" }),
    );
    expect(p).toMatchObject({
      team_id: team.id,
      team_name: team.name,
      group_path: [team.name],
      visibility: "team",
      description: "API",
      declared_license: "MIT",
      distribution_model: "saas",
      ai_usage_context: null,
      has_git_credential: false,
      created_by_user_name: "Dana Developer",
      archived_at: null,
      last_scan_at: null,
      latest_scan_id: null,
      latest_scan_status: null,
      scan_count: 0,
      release_count: 0,
      severity_summary: {},
      license_category_summary: {},
    });
    expect(Object.keys(p).sort()).toEqual([...CSV_COLUMNS].sort());
  });

  it("401 without a credential, 403 below developer, 409 on a taken slug, 422 on bad fields (edge and service)", async () => {
    expectProblem(await s.request("POST", "/v1/projects", { body: body() }), 401);
    expectProblem(await s.request("POST", "/v1/projects", { bearer: viewer, body: body() }), 403);
    expectProblem(await s.request("POST", "/v1/projects", { bearer: outsider, body: body() }), 403);
    const p = await create();
    const taken = expectProblem(
      await s.request("POST", "/v1/projects", { bearer: developer, body: body(team.id, { slug: p.slug }) }),
      409,
    );
    expect(taken.project_id).toBe(p.id);
    const edge = expectProblem(
      await s.request("POST", "/v1/projects", { bearer: developer, body: { name: "", slug: "x", team_id: "nope" } }),
      422,
    );
    expect((edge.errors as { path: string }[]).map((e) => e.path)).toEqual(["body.name", "body.team_id"]);
    const service = expectProblem(
      await s.request("POST", "/v1/projects", {
        bearer: developer,
        body: body(team.id, { declared_license: "MIT AND", slug: "Bad Slug" }),
      }),
      422,
    );
    expect((service.errors as { path: string }[]).map((e) => e.path).sort()).toEqual([
      "body.declared_license",
      "body.slug",
    ]);
    expectProblem(await s.request("POST", "/v1/projects", { bearer: admin, body: body(randomUUID()) }), 422);
  });
});

describe("GET /v1/projects/{id}", () => {
  it("200 for the team and super_admin, 403 not a member, 404 missing, 422 not a uuid", async () => {
    const p = await create();
    for (const bearer of [viewer, developer, teamAdmin, admin])
      expect((await s.request("GET", `/v1/projects/${p.id as string}`, { bearer })).status).toBe(200);
    expectProblem(await s.request("GET", `/v1/projects/${p.id as string}`, { bearer: outsider }), 403);
    expectProblem(await s.request("GET", `/v1/projects/${randomUUID()}`, { bearer: developer }), 404);
    expectProblem(await s.request("GET", "/v1/projects/not-a-uuid", { bearer: developer }), 422);
  });
});

describe("PATCH /v1/projects/{id}", () => {
  it("team_admin only; omitted unchanged, empty string clears; the credential is write-only", async () => {
    const p = await create(developer, body(team.id, { business_unit: "BU", owner_contact: "o", description: "d" }));
    const path = `/v1/projects/${p.id as string}`;
    expectProblem(await s.request("PATCH", path, { bearer: developer, body: { name: "x" } }), 403);
    expectProblem(await s.request("PATCH", path, { bearer: outsider, body: { name: "x" } }), 403);
    expectProblem(
      await s.request("PATCH", `/v1/projects/${randomUUID()}`, { bearer: teamAdmin, body: { name: "x" } }),
      404,
    );
    const cleared = await s.request("PATCH", path, {
      bearer: teamAdmin,
      body: { business_unit: "", owner_contact: "", distribution_model: "" },
    });
    expect(cleared.json).toMatchObject({
      business_unit: null,
      owner_contact: null,
      distribution_model: null,
      description: "d",
      name: p.name,
    });
    const secret = `ghp_${randomUUID()}`;
    const withCredential = await s.request("PATCH", path, { bearer: teamAdmin, body: { git_credential: secret } });
    expect(withCredential.json.has_git_credential).toBe(true);
    expect(withCredential.text).not.toContain(secret);
    expect((await s.request("GET", path, { bearer: teamAdmin })).text).not.toContain(secret);
    const both = expectProblem(
      await s.request("PATCH", path, { bearer: teamAdmin, body: { git_credential: "x", clear_git_credential: true } }),
      422,
    );
    expect((both.errors as { path: string }[])[0]?.path).toBe("body.clear_git_credential");
    expectProblem(await s.request("PATCH", path, { bearer: teamAdmin, body: { name: "" } }), 422);
    expectProblem(
      await s.request("PATCH", path, { bearer: teamAdmin, body: { git_url: "https://u:pw@example.com/x.git" } }),
      422,
    );
    expect(
      (await s.request("PATCH", path, { bearer: teamAdmin, body: { clear_git_credential: true } })).json
        .has_git_credential,
    ).toBe(false);
  });
});

describe("DELETE /v1/projects/{id}", () => {
  it("204 for developer (archives), 403 viewer, 404 missing; archived projects leave the list and refuse updates (409)", async () => {
    const p = await create();
    const path = `/v1/projects/${p.id as string}`;
    expectProblem(await s.request("DELETE", path, { bearer: viewer }), 403);
    expectProblem(await s.request("DELETE", `/v1/projects/${randomUUID()}`, { bearer: developer }), 404);
    expect((await s.request("DELETE", path, { bearer: developer })).status).toBe(204);
    expect((await s.request("DELETE", path, { bearer: developer })).status).toBe(204);
    expect((await s.request("GET", path, { bearer: viewer })).json.archived_at).toEqual(expect.any(String));
    const listed = await s.request("GET", `/v1/projects?team_id=${team.id}&q=${p.slug as string}`, { bearer: viewer });
    expect(listed.json.items).toEqual([]);
    const archived = await s.request(
      "GET",
      `/v1/projects?team_id=${team.id}&q=${p.slug as string}&include_archived=true`,
      { bearer: viewer },
    );
    expect((archived.json.items as { id: string }[]).map((x) => x.id)).toEqual([p.id]);
    expectProblem(await s.request("PATCH", path, { bearer: teamAdmin, body: { name: "x" } }), 409);
  });
});

describe("GET /v1/projects and /v1/projects/export.csv", () => {
  let listTeam: { id: string; name: string };
  let member: string;

  beforeAll(async () => {
    listTeam = await s.team();
    member = (await s.person([[listTeam.id, "viewer"]])).token;
    const dev = (await s.person([[listTeam.id, "developer"]])).token;
    for (let i = 0; i < 5; i++) {
      await create(
        dev,
        body(listTeam.id, {
          name: `List ${i}, "quoted"`,
          business_unit: i % 2 ? "Odd" : "Even",
          ...(i < 2 ? { distribution_model: "binary" } : {}),
        }),
      );
    }
  });

  it("pages with page and size (default 20, at most 100); the answer names the size page_size", async () => {
    const first = await s.request("GET", "/v1/projects?size=2", { bearer: member });
    expect(first.json).toMatchObject({ total: 5, page: 1, page_size: 2 });
    expect(first.json.items).toHaveLength(2);
    const last = await s.request("GET", "/v1/projects?size=2&page=3", { bearer: member });
    expect((last.json.items as { name: string }[]).map((p) => p.name)).toEqual(['List 4, "quoted"']);
    expect((await s.request("GET", "/v1/projects", { bearer: member })).json).toMatchObject({ page: 1, page_size: 20 });
    const tooBig = expectProblem(await s.request("GET", "/v1/projects?size=101", { bearer: member }), 422);
    expect((tooBig.errors as { path: string }[])[0]?.path).toBe("query.size");
    expectProblem(await s.request("GET", "/v1/projects?page=0", { bearer: member }), 422);
    expectProblem(await s.request("GET", "/v1/projects?distribution_model=shipped", { bearer: member }), 422);
    expectProblem(await s.request("GET", "/v1/projects"), 401);
  });

  it("filters by team_id, q, business_unit and distribution_model; the team's lists show nothing of others", async () => {
    const names = async (query: string, bearer = member) =>
      ((await s.request("GET", `/v1/projects?${query}`, { bearer })).json.items as { name: string }[]).map((p) =>
        p.name.slice(0, 6),
      );
    expect(await names("business_unit=odd")).toEqual(["List 1", "List 3"]);
    expect(await names("distribution_model=unset")).toEqual(["List 2", "List 3", "List 4"]);
    expect(await names("distribution_model=binary&q=list%201")).toEqual(["List 1"]);
    expect(await names(`team_id=${team.id}`)).toEqual([]);
    expect(await names(`team_id=${listTeam.id}`, outsider)).toEqual([]);
  });

  it("exports exactly the list's rows as CSV for the same filters", async () => {
    for (const query of ["", "business_unit=Even", "distribution_model=unset", "q=nothing-matches"]) {
      const list = await s.request("GET", `/v1/projects?size=100&${query}`, { bearer: member });
      const csv = await s.request("GET", `/v1/projects/export.csv?${query}`, { bearer: member });
      expect(csv.status).toBe(200);
      expect(csv.contentType).toMatch(/^text\/csv/);
      const items = list.json.items as Record<string, unknown>[];
      expect(csv.text).toBe(csvLine(CSV_COLUMNS) + items.map((p) => csvLine(CSV_COLUMNS.map((c) => p[c]))).join(""));
    }
    expectProblem(
      await s.request("GET", "/v1/projects/export.csv?distribution_model=shipped", { bearer: member }),
      422,
    );
    expectProblem(await s.request("GET", "/v1/projects/export.csv"), 401);
  });
});

describe("POST /v1/projects:batch", () => {
  it("201 when every row succeeds, 207 with row statuses and failed_by_status otherwise, 422 past 200 rows", async () => {
    const first = body();
    const ok = await s.request("POST", "/v1/projects:batch", {
      bearer: developer,
      body: { projects: [first, body(), first] },
    });
    expect(ok.status).toBe(201);
    expect(ok.json).toMatchObject({
      all_succeeded: true,
      total: 3,
      created: 2,
      already_existed: 1,
      failed: 0,
      failed_by_status: {},
    });
    const mixed = await s.request("POST", "/v1/projects:batch", {
      bearer: developer,
      body: {
        projects: [body(), body(other.id), { name: "x", slug: "Bad Slug", team_id: team.id }, { slug: "no-name" }],
      },
    });
    expect(mixed.status).toBe(207);
    expect(mixed.json).toMatchObject({
      all_succeeded: false,
      total: 4,
      created: 1,
      failed: 3,
      failed_by_status: { forbidden: 1, invalid: 2 },
    });
    expect((mixed.json.rows as { index: number; status: string }[]).map((r) => [r.index, r.status])).toEqual([
      [0, "created"],
      [1, "forbidden"],
      [2, "invalid"],
      [3, "invalid"],
    ]);
    expectProblem(
      await s.request("POST", "/v1/projects:batch", {
        bearer: developer,
        body: { projects: Array.from({ length: 201 }, () => body()) },
      }),
      422,
    );
    expectProblem(await s.request("POST", "/v1/projects:batch", { bearer: developer, body: { projects: [] } }), 422);
  });
});

/** What `attempt` answers once it is defined: identity follows projects' events a moment later. */
async function eventually<T>(attempt: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await attempt();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error("not within the time allowed");
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe("identity's view of projects", () => {
  it("counts a team's active projects in project_count", async () => {
    const counted = await s.team();
    const dev = (await s.person([[counted.id, "developer"]])).token;
    const [first] = [await create(dev, body(counted.id)), await create(dev, body(counted.id))];
    await s.request("DELETE", `/v1/projects/${first.id as string}`, { bearer: dev });
    await create(dev, body(counted.id));
    const count = async () =>
      (await s.request("GET", `/v1/admin/teams/${counted.id}`, { bearer: admin })).json.project_count as number;
    expect(await eventually(async () => ((await count()) === 2 ? 2 : undefined))).toBe(2);
  });
});

describe("API keys", () => {
  it("a project-scoped key is issued for an active project of its team only", async () => {
    const theirs = await create(admin, body(other.id));
    await eventually(async () =>
      (await s.request("GET", `/v1/admin/teams/${other.id}`, { bearer: admin })).json.project_count ? true : undefined,
    );
    const refused = await s.request("POST", "/v1/api-keys", {
      bearer: developer,
      body: { name: "ci", scope: "project", team_id: team.id, project_id: theirs.id },
    });
    expect((expectProblem(refused, 422).errors as { path: string }[])[0]?.path).toBe("body.project_id");
  });

  it("a project-scoped key reaches exactly its project; a read_only key changes nothing", async () => {
    const mine = await create();
    const sibling = await create();
    const issue = (permission_breadth: string) =>
      eventually(async () => {
        const r = await s.request("POST", "/v1/api-keys", {
          bearer: developer,
          body: { name: "ci", scope: "project", team_id: team.id, project_id: mine.id, permission_breadth },
        });
        return r.status === 201 ? (r.json.raw_key as string) : undefined;
      });
    const key = await issue("read_write");
    expect((await s.request("GET", `/v1/projects/${mine.id as string}`, { bearer: key })).status).toBe(200);
    expectProblem(await s.request("GET", `/v1/projects/${sibling.id as string}`, { bearer: key }), 403);
    const listed = await s.request("GET", "/v1/projects?size=100", { bearer: key });
    expect((listed.json.items as { id: string }[]).map((p) => p.id)).toEqual([mine.id]);
    expectProblem(await s.request("POST", "/v1/projects", { bearer: key, body: body() }), 403);
    expectProblem(await s.request("DELETE", `/v1/projects/${sibling.id as string}`, { bearer: key }), 403);
    const readOnly = await issue("read_only");
    expectProblem(await s.request("DELETE", `/v1/projects/${mine.id as string}`, { bearer: readOnly }), 403);
  });
});
