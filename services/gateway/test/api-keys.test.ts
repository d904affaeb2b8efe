// /v1/api-keys and the admin hash statistics through the gateway and a real identity: the raw key shown once,
// revoke and narrow holding on the very next request, expiry, scope, validation and the answers' shapes.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { verifyCallerToken } from "@sca/rpc";
import { SECRET, startIdentityStack, type IdentityStack } from "./identity-stack.ts";

/** The <secret> of tos_<prefix>_<secret> (base64url, so it may hold underscores itself). */
const secretOf = (raw: string) => raw.slice(raw.indexOf("_", "tos_".length) + 1);

let s: IdentityStack;
let adminToken: string;
let teamA: string;
let teamB: string;
let ownerA: string;
let ownerToken: string;

const READ_ONLY_REFUSAL = "This API key is read-only: it cannot change anything.";

async function issue(body: Record<string, unknown>, bearer = ownerToken) {
  const res = await s.request("POST", "/v1/api-keys", {
    bearer,
    body: { name: "ci", scope: "team", team_id: teamA, ...body },
  });
  expect(res.status).toBe(201);
  return {
    id: res.json.id as string,
    raw: res.json.raw_key as string,
    prefix: res.json.key_prefix as string,
    json: res.json,
  };
}

/** A write the key's holder is allowed past the edge; identity then answers 403 because keys manage no keys. */
const writeWith = (raw: string) =>
  s.request("POST", "/v1/api-keys", { bearer: raw, body: { name: "x", scope: "team", team_id: teamA } });

beforeAll(async () => {
  s = await startIdentityStack();
  adminToken = await s.token(await s.user({ superAdmin: true }));
  teamA = (await s.request("POST", "/v1/admin/teams", { bearer: adminToken, body: { name: "A", slug: "keys-a" } })).json
    .id as string;
  teamB = (await s.request("POST", "/v1/admin/teams", { bearer: adminToken, body: { name: "B", slug: "keys-b" } })).json
    .id as string;
  ownerA = await s.user();
  await s.request("POST", `/v1/admin/teams/${teamA}/members`, {
    bearer: adminToken,
    body: { user_id: ownerA, role: "team_admin" },
  });
  await s.request("POST", `/v1/admin/teams/${teamB}/members`, {
    bearer: adminToken,
    body: { user_id: ownerA, role: "team_admin" },
  });
  ownerToken = await s.token(ownerA);
});
afterAll(async () => {
  await s.close();
});

describe("issuing and listing", () => {
  it("answers 201 with the spec's fields and raw_key once; the list never shows the key again", async () => {
    const key = await issue({ expires_in_days: 30 });
    expect(key.json).toEqual({
      id: expect.any(String),
      name: "ci",
      scope: "team",
      organization_id: expect.any(String),
      team_id: teamA,
      project_id: null,
      permission_breadth: "read_only",
      key_prefix: expect.stringMatching(/^[0-9a-f]{12}$/),
      service_account_id: null,
      expires_at: expect.any(String),
      created_at: expect.any(String),
      created_by_user_id: ownerA,
      created_by_email: `${ownerA}@example.com`,
      last_used_at: null,
      revoked_at: null,
      raw_key: expect.stringMatching(new RegExp(`^tos_${key.prefix}_[A-Za-z0-9_-]{43}$`)),
    });
    expect(Date.parse(key.json.expires_at as string) - Date.now()).toBeGreaterThan(29 * 86_400_000);

    const list = await s.request("GET", "/v1/api-keys?page_size=200", { bearer: ownerToken });
    expect(list.status).toBe(200);
    expect(list.json).toMatchObject({ page: 1, page_size: 200, total: expect.any(Number) });
    const items = list.json.items as Record<string, unknown>[];
    expect(items.find((k) => k.id === key.id)).toMatchObject({ key_prefix: key.prefix });
    expect(list.text).not.toContain(secretOf(key.raw));
    expect(list.text).not.toContain("raw_key");
  });

  it("pages with page and page_size, filters, and refuses a page_size past 200 with 422", async () => {
    await issue({ name: "p1" });
    await issue({ name: "p2" });
    const first = await s.request("GET", `/v1/api-keys?page=1&page_size=1&team_id=${teamA}&scope=team`, {
      bearer: ownerToken,
    });
    expect(first.json).toMatchObject({ page: 1, page_size: 1 });
    expect((first.json.items as unknown[]).length).toBe(1);
    expect(first.json.total as number).toBeGreaterThanOrEqual(2);
    const over = await s.request("GET", "/v1/api-keys?page_size=201", { bearer: ownerToken });
    expect(over.status).toBe(422);
    expect(over.json.errors).toEqual([expect.objectContaining({ path: "query.page_size" })]);
    expect((await s.request("GET", "/v1/api-keys?include_revoked=maybe", { bearer: ownerToken })).status).toBe(422);
  });

  it("validates the issue body with 422", async () => {
    for (const body of [
      { name: "" },
      { name: "x".repeat(101) },
      { scope: "galaxy" },
      { expires_in_days: 1826 },
      { expires_in_days: 0 },
      { permission_breadth: "admin" },
      { team_id: "not-a-uuid" },
    ]) {
      const res = await s.request("POST", "/v1/api-keys", {
        bearer: ownerToken,
        body: { name: "ci", scope: "team", team_id: teamA, ...body },
      });
      expect({ body, status: res.status }).toEqual({ body, status: 422 });
    }
    // Shape is fine, the scope rule is identity's: a team key needs its team.
    expect(
      (await s.request("POST", "/v1/api-keys", { bearer: ownerToken, body: { name: "ci", scope: "team" } })).status,
    ).toBe(422);
  });

  it("applies who may issue: a developer may not issue a team key (403), an org key needs super_admin", async () => {
    const dev = await s.user();
    await s.request("POST", `/v1/admin/teams/${teamA}/members`, {
      bearer: adminToken,
      body: { user_id: dev, role: "developer" },
    });
    const devToken = await s.token(dev);
    expect(
      (
        await s.request("POST", "/v1/api-keys", {
          bearer: devToken,
          body: { name: "x", scope: "team", team_id: teamA },
        })
      ).status,
    ).toBe(403);
    expect(
      (await s.request("POST", "/v1/api-keys", { bearer: ownerToken, body: { name: "x", scope: "org" } })).status,
    ).toBe(403);
    expect(
      (await s.request("POST", "/v1/api-keys", { bearer: adminToken, body: { name: "x", scope: "org" } })).status,
    ).toBe(201);
  });
});

describe("using a key", () => {
  it("authenticates as the key: past the edge, identity knows it as an API key", async () => {
    const key = await issue({ permission_breadth: "read_write" });
    const res = await writeWith(key.raw);
    expect(res.status).toBe(403);
    expect(res.json.detail).toBe("API keys are managed by people, not by other API keys.");
  });

  it("refuses writes of a read_only key with 403 at the edge", async () => {
    const key = await issue({});
    const res = await writeWith(key.raw);
    expect(res.status).toBe(403);
    expect(res.json.detail).toBe(READ_ONLY_REFUSAL);
  });

  it("is refused (401) on the very next request after a revoke, though its answer was cached", async () => {
    const key = await issue({ permission_breadth: "read_write" });
    expect((await writeWith(key.raw)).status).toBe(403);
    expect(await s.redis.exists(`${s.answerNamespace}${key.prefix}`)).toBe(1);
    const revoke = await s.request("DELETE", `/v1/api-keys/${key.id}`, { bearer: ownerToken });
    expect(revoke.status).toBe(204);
    expect(revoke.text).toBe("");
    const next = await writeWith(key.raw);
    expect(next.status).toBe(401);
    expect(next.headers.get("www-authenticate")).toBe('Bearer error="invalid_token"');
    // Idempotent; the revoked key is listed only on request.
    expect((await s.request("DELETE", `/v1/api-keys/${key.id}`, { bearer: ownerToken })).status).toBe(204);
    const listed = await s.request("GET", "/v1/api-keys?include_revoked=true&page_size=200", { bearer: ownerToken });
    expect((listed.json.items as Record<string, unknown>[]).find((k) => k.id === key.id)?.revoked_at).toEqual(
      expect.any(String),
    );
    const active = await s.request("GET", "/v1/api-keys?page_size=200", { bearer: ownerToken });
    expect((active.json.items as Record<string, unknown>[]).some((k) => k.id === key.id)).toBe(false);
  });

  it("is refused writes on the very next request after a narrow, though its answer was cached", async () => {
    const key = await issue({ permission_breadth: "read_write" });
    expect((await writeWith(key.raw)).json.detail).not.toBe(READ_ONLY_REFUSAL);
    const narrowed = await s.request("POST", `/v1/api-keys/${key.id}/narrow`, {
      bearer: ownerToken,
      body: { permission_breadth: "read_only" },
    });
    expect(narrowed.status).toBe(200);
    expect(narrowed.json).toMatchObject({ id: key.id, permission_breadth: "read_only" });
    expect(narrowed.json).not.toHaveProperty("raw_key");
    const next = await writeWith(key.raw);
    expect(next.status).toBe(403);
    expect(next.json.detail).toBe(READ_ONLY_REFUSAL);
    // Never widened.
    const widen = await s.request("POST", `/v1/api-keys/${key.id}/narrow`, {
      bearer: ownerToken,
      body: { permission_breadth: "read_write" },
    });
    expect(widen.status).toBe(422);
  });

  it("is refused (401) once expired", async () => {
    const key = await issue({ expires_in_days: 1 });
    await s.sql("update api_keys set expires_at = now() - interval '1 second' where id = ?", [key.id]);
    expect((await writeWith(key.raw)).status).toBe(401);
  });

  it("carries only its own team: a team key of a holder in two teams does not reach the other", async () => {
    const key = await issue({});
    await s.request("GET", "/v1/api-keys", { bearer: key.raw });
    const entry = JSON.parse((await s.redis.get(`${s.answerNamespace}${key.prefix}`))!) as { caller_token: string };
    const caller = await verifyCallerToken(entry.caller_token, SECRET);
    expect(caller.memberships.map((m) => m.team_id)).toEqual([teamA]);
    expect(caller.api_key).toMatchObject({ scope: "team", team_id: teamA });
    // The holder reaches team B; the key manages nothing there, nor anywhere.
    const keyB = await issue({ team_id: teamB });
    expect((await s.request("DELETE", `/v1/api-keys/${keyB.id}`, { bearer: key.raw })).status).toBe(403);
  });
});

describe("revoke and narrow of keys one may not manage", () => {
  it("are 404 (unknown id, or someone else's key)", async () => {
    const key = await issue({});
    const stranger = await s.token(await s.user());
    expect((await s.request("DELETE", `/v1/api-keys/${key.id}`, { bearer: stranger })).status).toBe(404);
    expect(
      (
        await s.request("POST", `/v1/api-keys/${key.id}/narrow`, {
          bearer: stranger,
          body: { permission_breadth: "read_only" },
        })
      ).status,
    ).toBe(404);
    expect(
      (await s.request("DELETE", "/v1/api-keys/0190f1f2-0000-7000-8000-000000000000", { bearer: ownerToken })).status,
    ).toBe(404);
    expect((await s.request("DELETE", "/v1/api-keys/not-a-uuid", { bearer: ownerToken })).status).toBe(422);
  });
});

describe("GET /v1/admin/api-keys/hash-stats", () => {
  it("counts active keys by hash format for a super_admin, and is 404 for anyone else", async () => {
    const res = await s.request("GET", "/v1/admin/api-keys/hash-stats", { bearer: adminToken });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      active_total: expect.any(Number),
      hmac_sha256_count: expect.any(Number),
      legacy_bcrypt_count: 0,
    });
    expect(res.json.active_total).toBe(res.json.hmac_sha256_count);
    expect(res.json.active_total as number).toBeGreaterThan(0);
    expect((await s.request("GET", "/v1/admin/api-keys/hash-stats", { bearer: ownerToken })).status).toBe(404);
  });
});

describe("secrets", () => {
  // Last: it looks back over every answer and log line of this file.
  it("show each raw key in exactly one answer, its issue, and in no log line", () => {
    const issuedKeys = s
      .bodies()
      .map((b) => /"raw_key":"(tos_[^"]+)"/.exec(b)?.[1])
      .filter((k): k is string => k !== undefined);
    expect(issuedKeys.length).toBeGreaterThan(10);
    const logs = s.logText();
    for (const raw of issuedKeys) {
      const secret = secretOf(raw);
      expect(s.bodies().filter((b) => b.includes(secret))).toHaveLength(1);
      expect(logs).not.toContain(secret);
    }
    expect(logs).not.toContain(ownerToken);
  });
});
