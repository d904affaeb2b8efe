// The TOTP second factor through the gateway against a real identity: enrolment under a bearer, a sign-in that
// answers a pending token granting nothing, its completion with a TOTP or recovery code (field bounds, the
// per-address limit), and removal.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { totp } from "@sca/testkit";
import {
  PASSWORD,
  refreshCookieSet,
  signIn,
  startIdentityStack,
  type Answer,
  type IdentityStack,
  type Client,
} from "./identity-stack.ts";

let s: IdentityStack;

beforeAll(async () => {
  s = await startIdentityStack();
}, 60_000);

afterAll(async () => {
  await s?.close();
});

function expectProblem(answer: Answer, status: number, code?: string): void {
  expect(answer.status).toBe(status);
  expect(answer.headers["content-type"]).toMatch(/^application\/problem\+json/);
  if (code) expect(answer.json.code).toBe(code);
}

async function pendingSignIn(client: Client, email: string, prefix = "/v1/auth"): Promise<string> {
  const answer = await client.request("POST", `${prefix}/login`, { body: { email, password: PASSWORD } });
  expect(answer.status).toBe(200);
  expect(answer.json).toEqual({ mfa_required: true, mfa_token: expect.any(String), expires_in: 300 });
  expect(answer.headers["set-cookie"]).toBeUndefined();
  return answer.json.mfa_token as string;
}

describe("a person with a second factor", () => {
  let email: string;
  let secret: string;
  let recoveryCodes: string[];

  it("enrols: setup answers a secret, confirm checks the code and answers ten recovery codes once", async () => {
    email = (await s.person()).email;
    const { accessToken } = await signIn(s.client(), email);
    const client = s.client();
    const setup = await client.request("POST", "/v1/auth/mfa/totp/setup", { bearer: accessToken });
    expect(setup.status).toBe(200);
    expect(Object.keys(setup.json).sort()).toEqual(["otpauth_uri", "secret"]);
    secret = setup.json.secret as string;
    expect(setup.json.otpauth_uri).toMatch(/^otpauth:\/\/totp\//);

    expectProblem(
      await client.request("POST", "/auth/mfa/totp/confirm", {
        bearer: accessToken,
        body: { code: totp(secret, Date.now() - 600_000) },
      }),
      422,
      "invalid_second_factor_code",
    );
    for (const code of ["", "1".repeat(65)])
      expectProblem(
        await client.request("POST", "/auth/mfa/totp/confirm", { bearer: accessToken, body: { code } }),
        422,
        "validation_error",
      );
    const confirm = await client.request("POST", "/auth/mfa/totp/confirm", {
      bearer: accessToken,
      body: { code: totp(secret) },
    });
    expect(confirm.status).toBe(200);
    recoveryCodes = confirm.json.recovery_codes as string[];
    expect(recoveryCodes).toHaveLength(10);
    for (const c of recoveryCodes) expect(c).toMatch(/^\w{5}-\w{5}$/);

    expectProblem(
      await client.request("POST", "/v1/auth/mfa/totp/setup", { bearer: accessToken }),
      409,
      "second_factor_enabled",
    );
    expectProblem(
      await client.request("POST", "/v1/auth/mfa/totp/confirm", { bearer: accessToken, body: { code: totp(secret) } }),
      409,
      "no_enrolment_pending",
    );
    expect((await client.request("GET", "/v1/auth/me", { bearer: accessToken })).json.mfa_enabled).toBe(true);
  });

  it("signs in with a pending token that grants nothing, then completes with a TOTP code", async () => {
    const client = s.client();
    const mfaToken = await pendingSignIn(client, email, "/auth");
    const asBearer = await client.request("GET", "/v1/auth/me", { bearer: mfaToken });
    expectProblem(asBearer, 401);
    expect(asBearer.headers["www-authenticate"]).toBe('Bearer error="invalid_token"');
    expectProblem(await client.request("POST", "/v1/auth/refresh", { cookie: `refresh_token=${mfaToken}` }), 401);

    expectProblem(
      await client.request("POST", "/v1/auth/login/mfa", {
        body: { mfa_token: mfaToken, code: totp(secret, Date.now() - 600_000) },
      }),
      401,
      "invalid_second_factor",
    );
    // The enrolment spent this step's code; the next step is within the accepted drift.
    const done = await client.request("POST", "/auth/login/mfa", {
      body: { mfa_token: mfaToken, code: totp(secret, Date.now() + 30_000) },
    });
    expect(done.status).toBe(200);
    expect(Object.keys(done.json).sort()).toEqual(["access_token", "expires_in", "token_type"]);
    expect(refreshCookieSet(done)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await client.request("GET", "/auth/me", { bearer: done.json.access_token as string })).json.email).toBe(
      email,
    );
  });

  it("completes with a recovery code once", async () => {
    const first = await pendingSignIn(s.client(), email);
    expect(
      (await s.client().request("POST", "/v1/auth/login/mfa", { body: { mfa_token: first, code: recoveryCodes[0] } }))
        .status,
    ).toBe(200);
    const second = await pendingSignIn(s.client(), email);
    expectProblem(
      await s.client().request("POST", "/v1/auth/login/mfa", { body: { mfa_token: second, code: recoveryCodes[0] } }),
      401,
      "invalid_second_factor",
    );
  });

  it("refuses a completion outside the field bounds, and a forged or foreign pending token", async () => {
    // A client each: the limit counts before the body is judged.
    for (const body of [
      { mfa_token: "", code: "123456" },
      { mfa_token: "x".repeat(4097), code: "123456" },
      { mfa_token: "x", code: "" },
      { mfa_token: "x", code: "1".repeat(65) },
      { code: "123456" },
    ]) {
      expectProblem(await s.client().request("POST", "/v1/auth/login/mfa", { body }), 422, "validation_error");
    }
    const { accessToken } = await signIn(s.client(), (await s.person()).email);
    expectProblem(
      await s
        .client()
        .request("POST", "/v1/auth/login/mfa", { body: { mfa_token: accessToken, code: "1".repeat(64) } }),
      401,
      "invalid_second_factor",
    );
  });

  it("allows 5 completions per minute per client address, then 429 with Retry-After 60", async () => {
    const client = s.client();
    for (let i = 0; i < 5; i++)
      expect(
        (await client.request("POST", "/auth/login/mfa", { body: { mfa_token: "x", code: "123456" } })).status,
      ).toBe(401);
    const refused = await client.request("POST", "/v1/auth/login/mfa", { body: { mfa_token: "x", code: "123456" } });
    expectProblem(refused, 429, "rate_limited");
    expect(refused.headers["retry-after"]).toBe("60");
  });

  it("removes the second factor with a recovery code; sign-in is one step again", async () => {
    const mfaToken = await pendingSignIn(s.client(), email);
    const done = await s
      .client()
      .request("POST", "/v1/auth/login/mfa", { body: { mfa_token: mfaToken, code: recoveryCodes[1] } });
    const bearer = done.json.access_token as string;
    const client = s.client();
    expectProblem(
      await client.request("DELETE", "/auth/mfa", { bearer, body: { code: "00000-00000" } }),
      422,
      "invalid_second_factor_code",
    );
    expectProblem(await client.request("DELETE", "/auth/mfa", { bearer, body: {} }), 422, "validation_error");
    expect((await client.request("DELETE", "/auth/mfa", { bearer, body: { code: recoveryCodes[2] } })).status).toBe(
      204,
    );
    expectProblem(await client.request("DELETE", "/v1/auth/mfa", { bearer, body: { code: recoveryCodes[3] } }), 404);
    expect((await client.request("GET", "/v1/auth/me", { bearer })).json.mfa_enabled).toBe(false);
    await signIn(s.client(), email);
  });

  it("needs a bearer for every enrolment route", async () => {
    const client = s.client();
    for (const [method, path] of [
      ["POST", "/v1/auth/mfa/totp/setup"],
      ["POST", "/auth/mfa/totp/confirm"],
      ["DELETE", "/v1/auth/mfa"],
    ] as const) {
      expectProblem(await client.request(method, path, { body: { code: "123456" } }), 401);
    }
  });
});
