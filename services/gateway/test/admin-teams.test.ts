// The admin directory routes through the gateway and a real identity: teams (list, create, get, patch, delete,
// move), members, role changes (last super_admin, team_id), service accounts and organizations.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { startIdentityStack, type IdentityStack } from "./identity-stack.ts";

let s: IdentityStack;
let admin: string;
let adminToken: string;

async function createTeam(name: string, extra: Record<string, unknown> = {}) {
  const res = await s.request("POST", "/v1/admin/teams", {
    bearer: adminToken,
    body: { name, slug: name.toLowerCase(), ...extra },
  });
  expect(res.status).toBe(201);
  return res.json;
}

beforeAll(async () => {
  s = await startIdentityStack();
  admin = await s.user({ superAdmin: true });
  adminToken = await s.token(admin);
});
afterAll(async () => {
  await s.close();
});

describe("teams", () => {
  it("creates a team (201) in the only organization, with the spec's fields", async () => {
    const team = await createTeam("Payments", { description: "money" });
    expect(team).toEqual({
      id: expect.any(String),
      name: "Payments",
      slug: "payments",
      description: "money",
      organization_id: expect.any(String),
      parent_group_id: null,
      project_count: 0,
      members: [],
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const again = await s.request("POST", "/v1/admin/teams", {
      bearer: adminToken,
      body: { name: "Other", slug: "payments" },
    });
    expect(again.status).toBe(409);
    expect(again.json.code).toBe("slug_taken");
  });

  it("validates the create body with 422", async () => {
    for (const body of [
      { name: "", slug: "a" },
      { name: "a", slug: "" },
      { name: "x".repeat(256), slug: "a" },
      { name: "a", slug: "s".repeat(65) },
      { slug: "a" },
      { name: "a", slug: "b", organization_id: "nope" },
    ]) {
      const res = await s.request("POST", "/v1/admin/teams", { bearer: adminToken, body });
      expect({ body, status: res.status }).toEqual({ body, status: 422 });
    }
  });

  it("refuses a NUL character in a name with 422 naming the field (it once reached PostgreSQL: 500)", async () => {
    const res = await s.request("POST", "/v1/admin/teams", {
      bearer: adminToken,
      body: { name: "a\u0000b", slug: "x" },
    });
    expect(res.status).toBe(422);
    expect(res.json.errors).toEqual([{ path: "body.name", message: "must not contain the NUL character (U+0000)" }]);
  });

  it("lists with page, page_size and search; a page_size past 200 is 422", async () => {
    await createTeam("Search-One");
    await createTeam("Search-Two");
    const found = await s.request("GET", "/v1/admin/teams?search=search-&page_size=1&page=2", { bearer: adminToken });
    expect(found.status).toBe(200);
    expect(found.json).toMatchObject({ total: 2, page: 2, page_size: 1 });
    expect((found.json.items as { name: string }[]).map((t) => t.name)).toHaveLength(1);
    const defaults = await s.request("GET", "/v1/admin/teams", { bearer: adminToken });
    expect(defaults.json).toMatchObject({ page: 1, page_size: 50 });
    for (const q of ["page_size=201", "page_size=0", "page=0"]) {
      expect((await s.request("GET", `/v1/admin/teams?${q}`, { bearer: adminToken })).status).toBe(422);
    }
  });

  it("gets, patches and deletes a team; an unknown team is 404", async () => {
    const team = await createTeam("Mutable", { description: "before" });
    const id = team.id as string;
    expect((await s.request("GET", `/v1/admin/teams/${id}`, { bearer: adminToken })).json).toMatchObject({
      id,
      name: "Mutable",
    });
    const patched = await s.request("PATCH", `/v1/admin/teams/${id}`, {
      bearer: adminToken,
      body: { name: "Renamed", description: null },
    });
    expect(patched.status).toBe(200);
    expect(patched.json).toMatchObject({ id, name: "Renamed", slug: "mutable", description: null });
    expect((await s.request("PATCH", `/v1/admin/teams/${id}`, { bearer: adminToken, body: { slug: "" } })).status).toBe(
      422,
    );
    const deleted = await s.request("DELETE", `/v1/admin/teams/${id}`, { bearer: adminToken });
    expect(deleted.status).toBe(204);
    expect((await s.request("GET", `/v1/admin/teams/${id}`, { bearer: adminToken })).status).toBe(404);
    expect((await s.request("DELETE", `/v1/admin/teams/${id}`, { bearer: adminToken })).status).toBe(404);
    expect(
      (await s.request("PATCH", `/v1/admin/teams/${randomUUID()}`, { bearer: adminToken, body: { name: "x" } })).status,
    ).toBe(404);
  });

  it("moves a team with its subtree; a cycle or an unknown parent is 422; a team with subteams is not deleted (409)", async () => {
    const root = await createTeam("Root");
    const child = await createTeam("Child", { parent_group_id: root.id });
    const grandchild = await createTeam("Grandchild", { parent_group_id: child.id });
    const other = await createTeam("Elsewhere");

    const cycle = await s.request("POST", `/v1/admin/teams/${root.id as string}/move`, {
      bearer: adminToken,
      body: { new_parent_id: grandchild.id },
    });
    expect(cycle.status).toBe(422);
    expect(cycle.json.errors).toEqual([expect.objectContaining({ path: "body.new_parent_id" })]);
    expect(
      (
        await s.request("POST", `/v1/admin/teams/${root.id as string}/move`, {
          bearer: adminToken,
          body: { new_parent_id: root.id },
        })
      ).status,
    ).toBe(422);
    expect(
      (
        await s.request("POST", `/v1/admin/teams/${root.id as string}/move`, {
          bearer: adminToken,
          body: { new_parent_id: randomUUID() },
        })
      ).status,
    ).toBe(422);
    expect(
      (await s.request("POST", `/v1/admin/teams/${root.id as string}/move`, { bearer: adminToken, body: {} })).status,
    ).toBe(422);

    const moved = await s.request("POST", `/v1/admin/teams/${child.id as string}/move`, {
      bearer: adminToken,
      body: { new_parent_id: other.id },
    });
    expect(moved.status).toBe(200);
    expect(moved.json).toMatchObject({ id: child.id, parent_group_id: other.id });
    expect(
      (await s.request("GET", `/v1/admin/teams/${grandchild.id as string}`, { bearer: adminToken })).json
        .parent_group_id,
    ).toBe(child.id);

    const blocked = await s.request("DELETE", `/v1/admin/teams/${other.id as string}`, { bearer: adminToken });
    expect(blocked.status).toBe(409);
    expect(blocked.json.code).toBe("team_has_subteams");
    const toRoot = await s.request("POST", `/v1/admin/teams/${child.id as string}/move`, {
      bearer: adminToken,
      body: { new_parent_id: null },
    });
    expect(toRoot.json.parent_group_id).toBeNull();
  });
});

describe("members", () => {
  it("adds a member (and changes the role of one), removes it; unknown user 422, missing membership 404", async () => {
    const team = await createTeam("Crew");
    const person = await s.user();
    const added = await s.request("POST", `/v1/admin/teams/${team.id as string}/members`, {
      bearer: adminToken,
      body: { user_id: person, role: "developer" },
    });
    expect(added.status).toBe(200);
    expect(added.json.members).toEqual([
      {
        user_id: person,
        email: `${person}@example.com`,
        full_name: "Test Person",
        role: "developer",
        created_at: expect.any(String),
      },
    ]);
    const changed = await s.request("POST", `/v1/admin/teams/${team.id as string}/members`, {
      bearer: adminToken,
      body: { user_id: person, role: "team_admin" },
    });
    expect((changed.json.members as { role: string }[]).map((m) => m.role)).toEqual(["team_admin"]);

    expect(
      (
        await s.request("POST", `/v1/admin/teams/${team.id as string}/members`, {
          bearer: adminToken,
          body: { user_id: randomUUID(), role: "developer" },
        })
      ).status,
    ).toBe(422);
    expect(
      (
        await s.request("POST", `/v1/admin/teams/${team.id as string}/members`, {
          bearer: adminToken,
          body: { user_id: person, role: "super_admin" },
        })
      ).status,
    ).toBe(422);
    expect(
      (
        await s.request("POST", `/v1/admin/teams/${randomUUID()}/members`, {
          bearer: adminToken,
          body: { user_id: person, role: "developer" },
        })
      ).status,
    ).toBe(404);

    const removed = await s.request("DELETE", `/v1/admin/teams/${team.id as string}/members/${person}`, {
      bearer: adminToken,
    });
    expect(removed.status).toBe(204);
    expect(
      (await s.request("DELETE", `/v1/admin/teams/${team.id as string}/members/${person}`, { bearer: adminToken }))
        .status,
    ).toBe(404);
  });
});

describe("PATCH /v1/admin/users/{id}/role", () => {
  it("sets a team role with team_id, refuses it without (422), and promotes to super_admin ignoring team_id", async () => {
    const team = await createTeam("Roles");
    const person = await s.user();
    const missing = await s.request("PATCH", `/v1/admin/users/${person}/role`, {
      bearer: adminToken,
      body: { role: "developer" },
    });
    expect(missing.status).toBe(422);
    expect(missing.json.errors).toEqual([expect.objectContaining({ path: "body.team_id" })]);
    expect(
      (
        await s.request("PATCH", `/v1/admin/users/${person}/role`, {
          bearer: adminToken,
          body: { role: "group_admin" },
        })
      ).status,
    ).toBe(422);
    expect(
      (
        await s.request("PATCH", `/v1/admin/users/${person}/role`, {
          bearer: adminToken,
          body: { role: "viewer", team_id: team.id },
        })
      ).status,
    ).toBe(422);

    const dev = await s.request("PATCH", `/v1/admin/users/${person}/role`, {
      bearer: adminToken,
      body: { role: "developer", team_id: team.id },
    });
    expect(dev.status).toBe(200);
    expect(dev.json).toMatchObject({
      id: person,
      is_superuser: false,
      memberships: [{ team_id: team.id, team_name: "Roles", role: "developer" }],
    });
    const promoted = await s.request("PATCH", `/v1/admin/users/${person}/role`, {
      bearer: adminToken,
      body: { role: "super_admin", team_id: "ignored" },
    });
    expect(promoted.status).toBe(200);
    expect(promoted.json.is_superuser).toBe(true);
    expect(
      (
        await s.request("PATCH", `/v1/admin/users/${randomUUID()}/role`, {
          bearer: adminToken,
          body: { role: "super_admin" },
        })
      ).status,
    ).toBe(404);
    // Back to one super_admin for the next test.
    expect(
      (
        await s.request("PATCH", `/v1/admin/users/${person}/role`, {
          bearer: adminToken,
          body: { role: "developer", team_id: team.id },
        })
      ).status,
    ).toBe(200);
  });

  it("refuses to demote the last active super_admin with 409 last-super-admin", async () => {
    const team = await createTeam("Last");
    const res = await s.request("PATCH", `/v1/admin/users/${admin}/role`, {
      bearer: adminToken,
      body: { role: "developer", team_id: team.id },
    });
    expect(res.status).toBe(409);
    expect(res.json.type).toMatch(/\/last-super-admin$/);
    expect((await s.request("GET", "/v1/admin/teams", { bearer: adminToken })).status).toBe(200);
  });
});

describe("service accounts", () => {
  it("creates one (201) that can then be given a role", async () => {
    const res = await s.request("POST", "/v1/admin/service-accounts", {
      bearer: adminToken,
      body: { name: "ci-robot" },
    });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ full_name: "ci-robot", is_superuser: false, is_active: true, memberships: [] });
    expect(res.json.email).toMatch(/@service-accounts\.invalid$/);
    expect(
      (await s.request("POST", "/v1/admin/service-accounts", { bearer: adminToken, body: { name: "" } })).status,
    ).toBe(422);
  });
});

describe("callers other than a super_admin", () => {
  it("get 404 on every admin route, whatever the body; anonymous callers 401", async () => {
    const team = await createTeam("Hidden");
    const bearer = await s.token(await s.user());
    const routes: [string, string, unknown][] = [
      ["GET", "/v1/admin/teams", undefined],
      ["POST", "/v1/admin/teams", { name: "n", slug: "s" }],
      ["GET", `/v1/admin/teams/${team.id as string}`, undefined],
      ["PATCH", `/v1/admin/teams/${team.id as string}`, { name: "n" }],
      ["DELETE", `/v1/admin/teams/${team.id as string}`, undefined],
      ["POST", `/v1/admin/teams/${team.id as string}/move`, { new_parent_id: null }],
      ["POST", `/v1/admin/teams/${team.id as string}/members`, { user_id: admin, role: "viewer" }],
      ["DELETE", `/v1/admin/teams/${team.id as string}/members/${admin}`, undefined],
      ["PATCH", `/v1/admin/users/${admin}/role`, { role: "developer" }],
      ["POST", "/v1/admin/service-accounts", { name: "x" }],
      ["GET", "/v1/admin/organizations", undefined],
      ["GET", "/v1/admin/api-keys/hash-stats", undefined],
    ];
    for (const [method, path, body] of routes) {
      expect({ method, path, status: (await s.request(method, path, { bearer, body })).status }).toEqual({
        method,
        path,
        status: 404,
      });
      expect({ method, path, status: (await s.request(method, path, { body })).status }).toEqual({
        method,
        path,
        status: 401,
      });
    }
    expect((await s.request("GET", `/v1/admin/teams/${team.id as string}`, { bearer: adminToken })).status).toBe(200);
  });
});

describe("organizations", () => {
  it("lists the organizations, paged; a page_size past 200 is 422", async () => {
    const res = await s.request("GET", "/v1/admin/organizations", { bearer: adminToken });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      items: [
        {
          id: expect.any(String),
          name: "Default organization",
          slug: "default",
          created_at: expect.any(String),
          updated_at: expect.any(String),
        },
      ],
      total: 1,
      page: 1,
      page_size: 50,
    });
    expect((await s.request("GET", "/v1/admin/organizations?page_size=201", { bearer: adminToken })).status).toBe(422);
  });

  // Last: it leaves a second organization behind.
  it("needs organization_id to create a team once several organizations exist (422)", async () => {
    const second = randomUUID();
    await s.sql("insert into organizations (id, name, slug) values (?, 'Second', 'second')", [second]);
    const res = await s.request("POST", "/v1/admin/teams", {
      bearer: adminToken,
      body: { name: "Where", slug: "where" },
    });
    expect(res.status).toBe(422);
    expect(res.json.errors).toEqual([expect.objectContaining({ path: "body.organization_id" })]);
    const placed = await s.request("POST", "/v1/admin/teams", {
      bearer: adminToken,
      body: { name: "Where", slug: "where", organization_id: second },
    });
    expect(placed.status).toBe(201);
    expect(placed.json.organization_id).toBe(second);
    expect(
      (await s.request("GET", "/v1/admin/organizations?page_size=1&page=2", { bearer: adminToken })).json,
    ).toMatchObject({ total: 2, page: 2 });
  });
});

describe("the team search limit", () => {
  it("answers 429 past GROUP_SEARCH_RATE_LIMIT (20/minute) searches of one user; listing without search is not counted", async () => {
    const searcher = await s.token(await s.user({ superAdmin: true }));
    const search = () => s.request("GET", "/v1/admin/teams?search=pay", { bearer: searcher });
    for (let i = 0; i < 20; i++) expect((await search()).status).toBe(200);
    const limited = await search();
    expect(limited.status).toBe(429);
    expect(limited.json.code).toBe("rate_limited");
    expect((await s.request("GET", "/v1/admin/teams?page_size=1", { bearer: searcher })).status).toBe(200);
    // Another user's budget is their own.
    expect((await s.request("GET", "/v1/admin/teams?search=pay", { bearer: adminToken })).status).toBe(200);
  });
});
