// Tenant isolation through every route that exists so far (teams, members, API keys): people and keys of team A
// never see or change anything of team B, and team B is the same afterwards.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { startIdentityStack, type IdentityStack, type RequestOptions } from "./identity-stack.ts";

let s: IdentityStack;
let adminToken: string;
let teamA: string;
let teamB: string;
let adminB: string;
let keyB: { id: string; prefix: string; raw: string };
/** Callers of team A: its team_admin, its developer, and a read_write key of its team_admin. */
const fromA: Record<string, string> = {};

async function member(team: string, role: string): Promise<string> {
  const user = await s.user();
  const res = await s.request("POST", `/v1/admin/teams/${team}/members`, {
    bearer: adminToken,
    body: { user_id: user, role },
  });
  expect(res.status).toBe(200);
  return user;
}

/** Team B as its super_admin and its own team_admin see it: the team, and team B's key. */
async function teamBState() {
  const team = await s.request("GET", `/v1/admin/teams/${teamB}`, { bearer: adminToken });
  const keys = await s.request("GET", `/v1/api-keys?include_revoked=true&page_size=200`, {
    bearer: await s.token(adminB),
  });
  return { team: team.json, keys: keys.json.items };
}

beforeAll(async () => {
  s = await startIdentityStack();
  adminToken = await s.token(await s.user({ superAdmin: true }));
  teamA = (await s.request("POST", "/v1/admin/teams", { bearer: adminToken, body: { name: "A", slug: "tenant-a" } }))
    .json.id as string;
  teamB = (await s.request("POST", "/v1/admin/teams", { bearer: adminToken, body: { name: "B", slug: "tenant-b" } }))
    .json.id as string;
  const adminA = await member(teamA, "team_admin");
  const devA = await member(teamA, "developer");
  adminB = await member(teamB, "team_admin");
  await member(teamB, "developer");
  fromA["team_admin of A"] = await s.token(adminA);
  fromA["developer of A"] = await s.token(devA);
  const keyA = await s.request("POST", "/v1/api-keys", {
    bearer: fromA["team_admin of A"],
    body: { name: "a-ci", scope: "team", team_id: teamA, permission_breadth: "read_write" },
  });
  fromA["read_write key of A"] = keyA.json.raw_key as string;
  const issuedB = await s.request("POST", "/v1/api-keys", {
    bearer: await s.token(adminB),
    body: { name: "b-ci", scope: "team", team_id: teamB, permission_breadth: "read_write" },
  });
  keyB = {
    id: issuedB.json.id as string,
    prefix: issuedB.json.key_prefix as string,
    raw: issuedB.json.raw_key as string,
  };
});
afterAll(async () => {
  await s.close();
});

describe("a caller of team A", () => {
  it("never sees team B's keys in a listing, whatever the filter", async () => {
    for (const [who, bearer] of Object.entries(fromA)) {
      for (const query of ["", `?team_id=${teamB}`, "?include_revoked=true&page_size=200", "?scope=team"]) {
        const res = await s.request("GET", `/v1/api-keys${query}`, { bearer });
        // People get their visible keys; a key gets 403 (keys manage no keys). Neither shows B.
        expect({ who, query, ok: [200, 403].includes(res.status) }).toEqual({ who, query, ok: true });
        expect(res.text).not.toContain(keyB.id);
        expect(res.text).not.toContain(keyB.prefix);
        expect(res.text).not.toContain(teamB);
      }
    }
  });

  it("cannot issue, revoke or narrow keys of team B, nor touch team B or its members", async () => {
    const before = await teamBState();
    const attempts: [string, string, RequestOptions["body"]][] = [
      ["POST", "/v1/api-keys", { name: "x", scope: "team", team_id: teamB }],
      [
        "POST",
        "/v1/api-keys",
        { name: "x", scope: "project", team_id: teamB, project_id: "0190f1f2-0000-7000-8000-000000000001" },
      ],
      ["DELETE", `/v1/api-keys/${keyB.id}`, undefined],
      ["POST", `/v1/api-keys/${keyB.id}/narrow`, { permission_breadth: "read_only" }],
      ["GET", `/v1/admin/teams/${teamB}`, undefined],
      ["PATCH", `/v1/admin/teams/${teamB}`, { name: "taken over" }],
      ["DELETE", `/v1/admin/teams/${teamB}`, undefined],
      ["POST", `/v1/admin/teams/${teamB}/move`, { new_parent_id: teamA }],
      ["POST", `/v1/admin/teams/${teamB}/members`, { user_id: adminB, role: "viewer" }],
      ["DELETE", `/v1/admin/teams/${teamB}/members/${adminB}`, undefined],
      ["GET", "/v1/admin/teams", undefined],
    ];
    for (const [who, bearer] of Object.entries(fromA)) {
      for (const [method, path, body] of attempts) {
        const res = await s.request(method, path, { bearer, body });
        // 404 hides team B; a key is refused earlier, as no key manages keys (403).
        const expected = who.includes("key") && path.startsWith("/v1/api-keys") ? 403 : 404;
        expect({ who, method, path, status: res.status }).toEqual({ who, method, path, status: expected });
        expect(res.text).not.toContain(keyB.prefix);
      }
    }
    expect(await teamBState()).toEqual(before);
    // Team B's key still works as before: not revoked, not narrowed.
    const stillRw = await s.request("POST", "/v1/api-keys", {
      bearer: keyB.raw,
      body: { name: "x", scope: "team", team_id: teamB },
    });
    expect(stillRw.json.detail).toBe("API keys are managed by people, not by other API keys.");
  });
});
