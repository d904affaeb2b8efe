// Sessions through the gateway against a real identity: the whole flow under each prefix (register, login, me,
// refresh rotation, reuse ending the sign-in, logout twice), the refresh limit, and bearers that must not pass on
// a bearer route: tampered, alg none, HS512, another key, expired, refresh-like.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createHmac } from "node:crypto";
import { AUTH_PREFIXES } from "../src/http/auth-paths.ts";
import {
  PASSWORD,
  SECRET,
  refreshCookieSet,
  signIn,
  startIdentityStack,
  type Answer,
  type IdentityStack,
} from "./identity-stack.ts";

let s: IdentityStack;

beforeAll(async () => {
  s = await startIdentityStack({ gatewayEnv: { REFRESH_RATE_LIMIT: "4/minute" } });
}, 60_000);

afterAll(async () => {
  await s?.close();
});

function expectProblem(answer: Answer, status: number, code?: string): void {
  expect(answer.status).toBe(status);
  expect(answer.headers["content-type"]).toMatch(/^application\/problem\+json/);
  if (code) expect(answer.json.code).toBe(code);
}

function expectCookieCleared(answer: Answer): void {
  const cookies = answer.headers["set-cookie"] ?? [];
  const cleared = (Array.isArray(cookies) ? cookies : [cookies]).filter(
    (c) => /^refresh_token=;/.test(c) && /Expires=Thu, 01 Jan 1970/.test(c),
  );
  expect(cleared.map((c) => /Path=([^;]+)/.exec(c)![1]).sort()).toEqual(["/api/auth", "/api/v1/auth"]);
}

describe.each(AUTH_PREFIXES)("a whole session under %s", (prefix) => {
  it("registers, signs in, rotates the refresh token, ends the sign-in on reuse and signs out idempotently", async () => {
    const client = s.client();
    const email = s.email();
    expect(
      (await client.request("POST", `${prefix}/register`, { body: { email, password: PASSWORD, full_name: "Grace" } }))
        .status,
    ).toBe(201);
    const first = await signIn(client, email, PASSWORD, prefix);

    const me = await client.request("GET", `${prefix}/me`, { bearer: first.accessToken });
    expect(me.status).toBe(200);
    expect(Object.keys(me.json).sort()).toEqual([
      "created_at",
      "email",
      "full_name",
      "id",
      "is_active",
      "is_superuser",
      "memberships",
      "mfa_enabled",
    ]);
    expect(me.json).toMatchObject({ email, full_name: "Grace", memberships: [], mfa_enabled: false });

    const rotated = await client.request("POST", `${prefix}/refresh`, { cookie: first.cookie });
    expect(rotated.status).toBe(200);
    expect(Object.keys(rotated.json).sort()).toEqual(["access_token", "expires_in", "token_type"]);
    const next = refreshCookieSet(rotated)!;
    expect(`refresh_token=${next}`).not.toBe(first.cookie);
    expect((await client.request("GET", `${prefix}/me`, { bearer: rotated.json.access_token as string })).status).toBe(
      200,
    );

    // The first token again: reuse. Its whole sign-in ends, the rotated token with it.
    const reuse = await client.request("POST", `${prefix}/refresh`, { cookie: first.cookie });
    expectProblem(reuse, 401, "invalid_refresh_token");
    expectCookieCleared(reuse);
    expectProblem(await client.request("POST", `${prefix}/refresh`, { cookie: `refresh_token=${next}` }), 401);

    const second = await signIn(client, email, PASSWORD, prefix);
    for (let i = 0; i < 2; i++) {
      const out = await client.request("POST", `${prefix}/logout`, {
        bearer: second.accessToken,
        cookie: second.cookie,
      });
      expect(out.status).toBe(204);
      expect(out.text).toBe("");
      expectCookieCleared(out);
    }
    expectProblem(await client.request("POST", `${prefix}/refresh`, { cookie: second.cookie }), 401);
  });
});

describe("refresh and logout", () => {
  it("refuses a refresh without a cookie, or with an unknown one, and clears the cookie", async () => {
    for (const cookie of [undefined, "refresh_token=", "refresh_token=nothing-we-issued", "other=1"]) {
      const answer = await s.client().request("POST", "/v1/auth/refresh", cookie === undefined ? {} : { cookie });
      expectProblem(answer, 401, "invalid_refresh_token");
      expectCookieCleared(answer);
    }
  });

  it("takes the refresh token from the cookie only, never from the body", async () => {
    const { email } = await s.person();
    const { cookie } = await signIn(s.client(), email);
    const token = cookie.slice("refresh_token=".length);
    expectProblem(await s.client().request("POST", "/v1/auth/refresh", { body: { refresh_token: token } }), 401);
    expect((await s.client().request("POST", "/v1/auth/refresh", { cookie: `theme=dark; ${cookie}` })).status).toBe(
      200,
    );
  });

  it("allows REFRESH_RATE_LIMIT refreshes per client address", async () => {
    const client = s.client();
    for (let i = 0; i < 4; i++) expect((await client.request("POST", "/auth/refresh")).status).toBe(401);
    expectProblem(await client.request("POST", "/v1/auth/refresh"), 429, "rate_limited");
  });

  it("needs a bearer to sign out, and answers 204 without a cookie", async () => {
    const { email } = await s.person();
    const { accessToken } = await signIn(s.client(), email);
    expectProblem(await s.client().request("POST", "/v1/auth/logout"), 401);
    expect((await s.client().request("POST", "/auth/logout", { bearer: accessToken })).status).toBe(204);
  });
});

describe("bearers that must not pass", () => {
  const b64 = (v: object) => Buffer.from(JSON.stringify(v)).toString("base64url");
  const signed = (header: object, payload: object, key: string | Buffer, hash = "sha256") => {
    const unsigned = `${b64(header)}.${b64(payload)}`;
    return `${unsigned}.${createHmac(hash, key).update(unsigned).digest("base64url")}`;
  };
  let userId: string;
  let good: string;
  let claims: Record<string, unknown>;

  beforeAll(async () => {
    const person = await s.person();
    userId = person.id;
    good = (await signIn(s.client(), person.email)).accessToken;
    claims = JSON.parse(Buffer.from(good.split(".")[1]!, "base64url").toString()) as Record<string, unknown>;
  });

  it("accepts the real one", async () => {
    expect((await s.client().request("GET", "/v1/auth/me", { bearer: good })).json.id).toBe(userId);
  });

  it.each([
    [
      "a changed payload",
      () =>
        `${good.split(".")[0]}.${b64({ ...claims, sub: "00000000-0000-4000-8000-000000000000" })}.${good.split(".")[2]}`,
    ],
    ["alg none", () => `${b64({ alg: "none", typ: "JWT" })}.${b64(claims)}.`],
    ["HS512 under the right key", () => signed({ alg: "HS512", typ: "JWT" }, claims, SECRET, "sha512")],
    [
      "HS256 under another key",
      () => signed({ alg: "HS256", typ: "JWT" }, claims, "another-secret-key-that-is-at-least-32-chars"),
    ],
    [
      "an expired token",
      () => signed({ alg: "HS256", typ: "JWT" }, { ...claims, iat: 1_700_000_000, exp: 1_700_001_800 }, SECRET),
    ],
    ["a token of another type", () => signed({ alg: "HS256", typ: "JWT" }, { ...claims, type: "refresh" }, SECRET)],
    ["a refresh token", () => "Xx3rK9aLmQ2vB7nT0pW5sYd8eHf1gJ4kC6uZ-_iOqRb"],
    ["a truncated token", () => good.slice(0, -2)],
  ])("refuses %s with 401 and a Bearer challenge", async (_name, bearer) => {
    const answer = await s.client().request("GET", "/v1/auth/me", { bearer: bearer() });
    expectProblem(answer, 401);
    expect(answer.headers["www-authenticate"]).toBe('Bearer error="invalid_token"');
  });

  it("refuses a real refresh token used as a bearer", async () => {
    const { cookie } = await signIn(s.client(), (await s.person()).email);
    expectProblem(await s.client().request("GET", "/auth/me", { bearer: cookie.slice("refresh_token=".length) }), 401);
  });

  it("refuses a missing bearer with the bare challenge", async () => {
    const answer = await s.client().request("GET", "/auth/me");
    expectProblem(answer, 401);
    expect(answer.headers["www-authenticate"]).toBe("Bearer");
  });
});
