// Bearer authentication at the gateway against a real identity service: which credentials are refused (401 with
// a Bearer challenge), the admin surface hidden (404) before any validation, read-only keys refused on writes,
// and the Redis cache of API-key answers (whole-key fingerprint, identity's key format).
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createHmac } from "node:crypto";
import { signCallerToken, verifyCallerToken } from "@sca/rpc";
import { fixturesOf } from "@sca/testkit";
import { SECRET, startIdentityStack, type IdentityStack } from "./identity-stack.ts";

/** The <secret> of tos_<prefix>_<secret> (base64url, so it may hold underscores itself). */
const secretOf = (raw: string) => raw.slice(raw.indexOf("_", "tos_".length) + 1);

let s: IdentityStack;
let admin: string;
let adminToken: string;
let teamId: string;

const b64 = (v: object) => Buffer.from(JSON.stringify(v)).toString("base64url");
const hs256 = (payload: object, key: string) => {
  const unsigned = `${b64({ alg: "HS256", typ: "JWT" })}.${b64(payload)}`;
  return `${unsigned}.${createHmac("sha256", key).update(unsigned).digest("base64url")}`;
};

async function teamAdminKey(breadth: "read_only" | "read_write"): Promise<{ id: string; raw: string; prefix: string }> {
  const owner = await s.user();
  await s.request("POST", `/v1/admin/teams/${teamId}/members`, {
    bearer: adminToken,
    body: { user_id: owner, role: "team_admin" },
  });
  const issued = await s.request("POST", "/v1/api-keys", {
    bearer: await s.token(owner),
    body: { name: "ci", scope: "team", team_id: teamId, permission_breadth: breadth },
  });
  expect(issued.status).toBe(201);
  return { id: issued.json.id as string, raw: issued.json.raw_key as string, prefix: issued.json.key_prefix as string };
}

beforeAll(async () => {
  s = await startIdentityStack();
  admin = await s.user({ superAdmin: true });
  adminToken = await s.token(admin);
  const team = await s.request("POST", "/v1/admin/teams", { bearer: adminToken, body: { name: "Auth", slug: "auth" } });
  teamId = team.json.id as string;
});
afterAll(async () => {
  await s.close();
});

describe("refused credentials", () => {
  it("answers 401 with a bare Bearer challenge when no credential is sent", async () => {
    const res = await s.request("GET", "/v1/api-keys");
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe("Bearer");
    expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(res.json).toMatchObject({ status: 401, instance: "/v1/api-keys" });
  });

  it("answers 401 invalid_token for garbage, expired, foreign-key, alg-none, tampered and caller tokens", async () => {
    const now = Math.floor(Date.now() / 1000);
    const valid = await s.token(admin);
    const identity = await fixturesOf("identity");
    const refused = {
      garbage: "not-a-token",
      expired: await identity.accessToken(admin, { lifetimeMinutes: 1, issuedAt: new Date(Date.now() - 3_600_000) }),
      "signed with another key": await identity.accessToken(admin, {
        secretKey: "another-secret-key-that-is-at-least-32-chars",
      }),
      "alg none": `${b64({ alg: "none", typ: "JWT" })}.${b64({ sub: admin, type: "access", iss: "sca-identity", iat: now, exp: now + 600 })}.`,
      "tampered subject": `${valid.split(".")[0]}.${b64({ sub: await s.user({ superAdmin: true }), type: "access", iss: "sca-identity", iat: now, exp: now + 600 })}.${valid.split(".")[2]}`,
      "an internal caller token": await signCallerToken(
        {
          kind: "user",
          user_id: admin,
          email: null,
          is_superuser: true,
          memberships: [],
          api_key_id: null,
          api_key: null,
          ip: null,
          user_agent: null,
        },
        SECRET,
      ),
      "right key, not an access token": hs256(
        { sub: admin, type: "refresh", iss: "sca-identity", iat: now, exp: now + 600 },
        SECRET,
      ),
      "an unknown API key": identity.unknownApiKey(),
    };
    for (const [what, bearer] of Object.entries(refused)) {
      const res = await s.request("GET", "/v1/api-keys", { bearer });
      expect({ what, status: res.status, challenge: res.headers.get("www-authenticate") }).toEqual({
        what,
        status: 401,
        challenge: 'Bearer error="invalid_token"',
      });
    }
  });

  it("answers 401 to other schemes and malformed headers without asking identity", async () => {
    for (const authorization of ["Basic dXNlcjpwYXNz", "Bearer", "Bearer a b", `Bearer ${"x".repeat(5000)}`]) {
      const res = await s.request("GET", "/v1/api-keys", { headers: { authorization } });
      expect({ authorization: authorization.slice(0, 20), status: res.status }).toEqual({
        authorization: authorization.slice(0, 20),
        status: 401,
      });
    }
  });

  it("serves a valid access token, and refuses it once its user is deactivated", async () => {
    const person = await s.user();
    const token = await s.token(person);
    expect((await s.request("GET", "/v1/api-keys", { bearer: token })).status).toBe(200);
    await s.sql("update users set is_active = false where id = ?", [person]);
    expect((await s.request("GET", "/v1/api-keys", { bearer: token })).status).toBe(401);
  });
});

describe("the admin surface", () => {
  it("is 404 for a signed-in non-admin, exactly like an unknown path, before the body is validated", async () => {
    const bearer = await s.token(await s.user());
    const unknown = await s.request("GET", "/v1/admin/no-such-thing", { bearer });
    for (const [method, path, body] of [
      ["GET", "/v1/admin/teams", undefined],
      ["POST", "/v1/admin/teams", { name: "" }],
      ["GET", "/v1/admin/organizations", undefined],
      ["PATCH", `/v1/admin/users/${admin}/role`, { role: "nonsense" }],
      ["GET", "/v1/admin/api-keys/hash-stats", undefined],
      ["GET", "/v1/admin/teams?page_size=100000", undefined],
    ] as const) {
      const res = await s.request(method, path, { bearer, body });
      expect({ method, path, status: res.status }).toEqual({ method, path, status: 404 });
      const bare = path.split("?")[0]!;
      expect(res.json).toEqual({ ...unknown.json, detail: `No resource at ${bare}.`, instance: bare });
    }
  });

  it("is 401 without a credential, whatever the body", async () => {
    const res = await s.request("POST", "/v1/admin/teams", { body: { name: "" } });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe("Bearer");
  });

  it("is 404 for an API key, even one a super_admin issued", async () => {
    const issued = await s.request("POST", "/v1/api-keys", {
      bearer: adminToken,
      body: { name: "org", scope: "org", permission_breadth: "read_write" },
    });
    expect(issued.status).toBe(201);
    const res = await s.request("GET", "/v1/admin/teams", { bearer: issued.json.raw_key as string });
    expect(res.status).toBe(404);
  });
});

describe("API keys", () => {
  it("refuses every write of a read_only key with 403 and lets a read_write key through to the service", async () => {
    const ro = await teamAdminKey("read_only");
    const rw = await teamAdminKey("read_write");
    for (const [method, path] of [
      ["POST", "/v1/api-keys"],
      ["DELETE", `/v1/api-keys/${ro.id}`],
      ["POST", `/v1/api-keys/${ro.id}/narrow`],
    ] as const) {
      const res = await s.request(method, path, {
        bearer: ro.raw,
        body: { name: "x", scope: "team", team_id: teamId },
      });
      expect({ path, status: res.status, detail: res.json.detail }).toEqual({
        path,
        status: 403,
        detail: "This API key is read-only: it cannot change anything.",
      });
    }
    // Past the edge, identity has its own rule (keys do not manage keys): a different 403.
    const rwRes = await s.request("POST", "/v1/api-keys", {
      bearer: rw.raw,
      body: { name: "x", scope: "team", team_id: teamId },
    });
    expect(rwRes.status).toBe(403);
    expect(rwRes.json.detail).not.toBe("This API key is read-only: it cannot change anything.");
  });

  it("caches identity's answer under sca:auth:api-key:<prefix> with a fingerprint of the whole key", async () => {
    const key = await teamAdminKey("read_only");
    expect((await s.request("GET", "/v1/api-keys", { bearer: key.raw })).status).toBe(403);
    const stored = await s.redis.get(`${s.answerNamespace}${key.prefix}`);
    const entry = JSON.parse(stored!) as { fingerprint: string; caller_token: string };
    expect(entry.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(stored).not.toContain(secretOf(key.raw));
    const caller = await verifyCallerToken(entry.caller_token, SECRET);
    expect(caller).toMatchObject({
      kind: "api_key",
      api_key_id: key.id,
      api_key: { scope: "team", team_id: teamId, permission_breadth: "read_only" },
    });
    const ttl = await s.redis.ttl(`${s.answerNamespace}${key.prefix}`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(30);

    // The same prefix with another secret is not a hit: identity refuses it, and the entry stays.
    const forged = `tos_${key.prefix}_${"A".repeat(43)}`;
    expect((await s.request("GET", "/v1/api-keys", { bearer: forged })).status).toBe(401);
    expect(await s.redis.get(`${s.answerNamespace}${key.prefix}`)).toBe(stored);
  });

  it("answers from the warm cache without asking identity", async () => {
    const key = await teamAdminKey("read_only");
    expect((await s.request("GET", "/v1/api-keys", { bearer: key.raw })).status).toBe(403);
    // Revoked behind identity's back (no cache deletion): only the cached answer can still admit the key.
    await s.sql("update api_keys set revoked_at = now() where id = ?", [key.id]);
    expect((await s.request("POST", "/v1/api-keys", { bearer: key.raw, body: {} })).json.detail).toBe(
      "This API key is read-only: it cannot change anything.",
    );
    await s.redis.del(`${s.answerNamespace}${key.prefix}`);
    expect((await s.request("GET", "/v1/api-keys", { bearer: key.raw })).status).toBe(401);
  });

  it("asks identity again when a cached entry is not valid", async () => {
    const key = await teamAdminKey("read_only");
    await s.redis.set(`${s.answerNamespace}${key.prefix}`, "{not json", "EX", 30);
    expect((await s.request("POST", "/v1/api-keys", { bearer: key.raw, body: {} })).status).toBe(403);
    expect(JSON.parse((await s.redis.get(`${s.answerNamespace}${key.prefix}`))!)).toHaveProperty("caller_token");
  });

  it("never caches an access token's answer", async () => {
    const before = await s.redis.keys(`${s.answerNamespace}*`);
    expect((await s.request("GET", "/v1/api-keys", { bearer: adminToken })).status).toBe(200);
    expect(await s.redis.keys(`${s.answerNamespace}*`)).toEqual(expect.arrayContaining(before));
    expect((await s.redis.keys(`${s.answerNamespace}*`)).length).toBe(before.length);
  });
});

describe("logs", () => {
  it("hold no bearer, raw key or caller token", async () => {
    const key = await teamAdminKey("read_write");
    await s.request("GET", "/v1/api-keys", { bearer: key.raw });
    await s.request("GET", "/v1/api-keys", { bearer: adminToken });
    const logs = s.logText();
    expect(logs).toContain('"route":"/v1/api-keys"');
    expect(logs).not.toContain(key.raw);
    expect(logs).not.toContain(secretOf(key.raw));
    expect(logs).not.toContain(adminToken);
    expect(logs).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/);
  });
});

describe("the OpenAPI document", () => {
  it("marks routes with auth as needing the bearer scheme, with their 401, and leaves anonymous ones alone", async () => {
    const doc = (await s.request("GET", "/openapi.json")).json as {
      paths: Record<string, Record<string, { security?: unknown; responses: Record<string, unknown> }>>;
      components: { securitySchemes: Record<string, unknown> };
    };
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: "http", scheme: "bearer" });
    for (const [path, method] of [
      ["/v1/api-keys", "post"],
      ["/v1/admin/teams/{id}", "patch"],
      ["/v1/admin/api-keys/hash-stats", "get"],
    ] as const) {
      expect(doc.paths[path]![method]!.security).toEqual([{ bearer: [] }]);
      expect(doc.paths[path]![method]!.responses).toHaveProperty("401");
    }
    expect(doc.paths["/health"]!.get!.security).toBeUndefined();
    expect(doc.paths["/health"]!.get!.responses).not.toHaveProperty("401");
  });
});
