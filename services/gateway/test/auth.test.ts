// Registration, password sign-in, forgot- and reset-password through the gateway against a real identity: status
// codes and field bounds under both prefixes, the refresh cookie's attributes, the per-address limits read from
// configuration (login fixed at 5/minute with Retry-After 60), the failed-sign-in throttle and the reset token.
import { closeTogether } from "@sca/testkit";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { AUTH_PREFIXES } from "../src/http/auth-paths.ts";
import {
  PASSWORD,
  refreshCookieSet,
  signIn,
  startIdentityStack,
  type Answer,
  type IdentityStack,
} from "./identity-stack.ts";

const NEW_PASSWORD = "amber-lantern-orchard-77";
let s: IdentityStack;
let off: IdentityStack;

beforeAll(async () => {
  s = await startIdentityStack({
    identityEnv: {
      LOGIN_THROTTLE_FAILURES: "3",
      LOGIN_THROTTLE_WINDOWS: "2,4",
      PASSWORD_RESET_EMAIL_COOLDOWN_SECONDS: "300",
    },
    gatewayEnv: {
      REGISTRATION_RATE_LIMIT: "3/minute",
      PASSWORD_RESET_RATE_LIMIT: "3/minute",
      PASSWORD_RESET_CONFIRM_RATE_LIMIT: "3/minute",
    },
  });
  off = await startIdentityStack({
    identityEnv: { AUTH_SELF_REGISTRATION: "false" },
    gatewayEnv: { APP_ENV: "staging" },
  });
}, 60_000);

afterAll(async () => {
  await closeTogether([s, off]);
});

function expectProblem(answer: Answer, status: number, code?: string): void {
  expect(answer.status).toBe(status);
  expect(answer.headers["content-type"]).toMatch(/^application\/problem\+json/);
  expect(answer.json.status).toBe(status);
  if (code) expect(answer.json.code).toBe(code);
}

function cookiesOf(answer: Answer): string[] {
  const set = answer.headers["set-cookie"];
  return set === undefined ? [] : Array.isArray(set) ? set : [set];
}

describe.each(AUTH_PREFIXES)("register under %s", (prefix) => {
  it("answers 201 with the public view of the new user and nothing of the password", async () => {
    const email = s.email();
    const answer = await s.client().request("POST", `${prefix}/register`, {
      body: { email: ` ${email.toUpperCase()}`, password: PASSWORD, full_name: "Ada" },
    });
    expect(answer.status).toBe(201);
    expect(Object.keys(answer.json).sort()).toEqual([
      "created_at",
      "email",
      "full_name",
      "id",
      "is_active",
      "is_superuser",
    ]);
    expect(answer.json).toMatchObject({ email, full_name: "Ada", is_active: true, is_superuser: false });
    expect(answer.text).not.toContain(PASSWORD);
    expect(cookiesOf(answer)).toEqual([]);
  });

  it("answers 409 for an address already registered, in any case", async () => {
    const { email } = await s.person();
    expectProblem(
      await s
        .client()
        .request("POST", `${prefix}/register`, { body: { email: email.toUpperCase(), password: PASSWORD } }),
      409,
      "email_registered",
    );
  });

  it("answers 422 outside the field bounds and for a common password", async () => {
    const client = s.client();
    const bad = [
      { password: PASSWORD },
      { email: "not-an-address", password: PASSWORD },
      { email: s.email(), password: "seven77" },
      { email: s.email(), password: "x".repeat(257) },
      { email: s.email(), password: PASSWORD, full_name: "x".repeat(256) },
      { email: s.email(), password: "password1" },
    ];
    for (const body of bad) {
      // A fresh address for each: the limit is 3 per minute here.
      const answer = await s.client().request("POST", `${prefix}/register`, { body });
      expectProblem(answer, 422);
      expect(answer.text).not.toContain(body.password);
    }
    // Exactly the bounds: 8 and 256 characters, counted as code points.
    expect(
      (await client.request("POST", `${prefix}/register`, { body: { email: s.email(), password: "qz8!kf3#" } })).status,
    ).toBe(201);
    expect(
      (await client.request("POST", `${prefix}/register`, { body: { email: s.email(), password: "🦊".repeat(256) } }))
        .status,
    ).toBe(201);
  });
});

describe("register", () => {
  it("answers 404 when self-registration is off", async () => {
    expectProblem(
      await off.client().request("POST", "/v1/auth/register", { body: { email: off.email(), password: PASSWORD } }),
      404,
    );
  });

  it("allows REGISTRATION_RATE_LIMIT per client address, then 429 with the rest of the window", async () => {
    const client = s.client();
    for (let i = 0; i < 3; i++)
      expect(
        (await client.request("POST", "/auth/register", { body: { email: s.email(), password: PASSWORD } })).status,
      ).toBe(201);
    const refused = await client.request("POST", "/v1/auth/register", {
      body: { email: s.email(), password: PASSWORD },
    });
    expectProblem(refused, 429, "rate_limited");
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
    expect(Number(refused.headers["retry-after"])).toBeLessThanOrEqual(60);
    expect(
      (await s.client().request("POST", "/v1/auth/register", { body: { email: s.email(), password: PASSWORD } }))
        .status,
    ).toBe(201);
  });
});

describe.each(AUTH_PREFIXES)("login under %s", (prefix) => {
  it("answers the token response and sets the refresh cookie on both paths", async () => {
    const { email } = await s.person();
    const { answer } = await signIn(s.client(), email, PASSWORD, prefix);
    expect(Object.keys(answer.json).sort()).toEqual(["access_token", "expires_in", "token_type"]);
    expect(answer.json).toMatchObject({ expires_in: 1800, token_type: "bearer" });
    const cookies = cookiesOf(answer);
    expect(cookies).toHaveLength(2);
    const token = refreshCookieSet(answer)!;
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    for (const [i, path] of ["/api/v1/auth", "/api/auth"].entries()) {
      const cookie = cookies[i]!;
      expect(cookie.startsWith(`refresh_token=${token};`)).toBe(true);
      expect(cookie).toContain(`Path=${path};`);
      expect(cookie).toMatch(/; HttpOnly/);
      expect(cookie).toMatch(/; SameSite=Strict/);
      expect(cookie).not.toMatch(/; Secure/);
      const maxAge = Number(/Max-Age=(\d+)/.exec(cookie)![1]);
      expect(maxAge).toBeGreaterThan(7 * 86400 - 60);
      expect(maxAge).toBeLessThanOrEqual(7 * 86400);
    }
  });

  it("answers 401 alike for a wrong password and an unknown address", async () => {
    const { email } = await s.person();
    const client = s.client();
    expectProblem(
      await client.request("POST", `${prefix}/login`, { body: { email, password: "wrong-password-1" } }),
      401,
      "invalid_credentials",
    );
    expectProblem(
      await client.request("POST", `${prefix}/login`, { body: { email: s.email(), password: PASSWORD } }),
      401,
      "invalid_credentials",
    );
  });

  it("answers 422 outside the field bounds", async () => {
    const client = s.client();
    for (const body of [
      { password: PASSWORD },
      { email: s.email() },
      { email: s.email(), password: "" },
      { email: s.email(), password: "y".repeat(257) },
    ]) {
      expectProblem(await client.request("POST", `${prefix}/login`, { body }), 422, "validation_error");
    }
  });
});

describe("login limits", () => {
  it("marks the cookie Secure outside APP_ENV=dev", async () => {
    const { email } = await off.person();
    const { answer } = await signIn(off.client(), email);
    for (const cookie of cookiesOf(answer)) expect(cookie).toMatch(/; Secure/);
  });

  it("allows 5 sign-in attempts per minute per client address over both prefixes, then 429 with Retry-After 60", async () => {
    const { email } = await s.person();
    const client = s.client();
    // Unknown addresses, so the failed-sign-in throttle of `email` stays out of it.
    for (const prefix of ["/v1/auth", "/auth", "/v1/auth", "/auth"]) {
      expect(
        (await client.request("POST", `${prefix}/login`, { body: { email: s.email(), password: "wrong-password-1" } }))
          .status,
      ).toBe(401);
    }
    expect((await client.request("POST", "/auth/login", { body: { email, password: PASSWORD } })).status).toBe(200);
    for (const body of [{ email, password: PASSWORD }, {}]) {
      const refused = await client.request("POST", "/v1/auth/login", { body });
      expectProblem(refused, 429, "rate_limited");
      expect(refused.headers["retry-after"]).toBe("60");
    }
    expect((await s.client().request("POST", "/v1/auth/login", { body: { email, password: PASSWORD } })).status).toBe(
      200,
    );
  });

  it("refuses an address after LOGIN_THROTTLE_FAILURES failures for each window in turn, whatever the password", async () => {
    const { email } = await s.person();
    const fail = () => s.client().request("POST", "/v1/auth/login", { body: { email, password: "wrong-password-1" } });
    for (let i = 0; i < 3; i++) expect((await fail()).status).toBe(401);
    const refused = await s.client().request("POST", "/auth/login", { body: { email, password: PASSWORD } });
    expectProblem(refused, 429, "sign_in_throttled");
    const wait = Number(refused.headers["retry-after"]);
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(2);
    expect(refused.json.retry_after_seconds).toBe(wait);
    await new Promise((r) => setTimeout(r, wait * 1000 + 100));
    // The first window is over; the next failure refuses the address for the second window (4 s).
    expect((await fail()).status).toBe(401);
    const again = await s.client().request("POST", "/v1/auth/login", { body: { email, password: PASSWORD } });
    expectProblem(again, 429, "sign_in_throttled");
    expect(Number(again.headers["retry-after"])).toBeGreaterThan(2);
    await new Promise((r) => setTimeout(r, Number(again.headers["retry-after"]) * 1000 + 100));
    expect((await s.client().request("POST", "/v1/auth/login", { body: { email, password: PASSWORD } })).status).toBe(
      200,
    );
  }, 20_000);
});

describe("forgot-password and reset-password", () => {
  it("answers 204 for any address, with Retry-After while the address's cooldown runs", async () => {
    for (const email of [s.email(), (await s.person()).email]) {
      const first = await s.client().request("POST", "/v1/auth/forgot-password", { body: { email } });
      expect(first.status).toBe(204);
      expect(first.text).toBe("");
      expect(first.headers["retry-after"]).toBeUndefined();
      const second = await s
        .client()
        .request("POST", "/auth/forgot-password", { body: { email: email.toUpperCase() } });
      expect(second.status).toBe(204);
      expect(Number(second.headers["retry-after"])).toBeGreaterThan(290);
      expect(Number(second.headers["retry-after"])).toBeLessThanOrEqual(300);
    }
  });

  it("answers 422 for a malformed address", async () => {
    expectProblem(await s.client().request("POST", "/v1/auth/forgot-password", { body: { email: "nobody" } }), 422);
  });

  it("allows PASSWORD_RESET_RATE_LIMIT per client address", async () => {
    const client = s.client();
    for (let i = 0; i < 3; i++)
      expect((await client.request("POST", "/v1/auth/forgot-password", { body: { email: s.email() } })).status).toBe(
        204,
      );
    expectProblem(
      await client.request("POST", "/auth/forgot-password", { body: { email: s.email() } }),
      429,
      "rate_limited",
    );
  });

  it("sets the new password with a one-shot token, ends every session and lifts the throttle", async () => {
    const person = await s.person();
    const session = await signIn(s.client(), person.email);
    for (let i = 0; i < 3; i++)
      await s
        .client()
        .request("POST", "/v1/auth/login", { body: { email: person.email, password: "wrong-password-1" } });
    expect(
      (await s.client().request("POST", "/v1/auth/login", { body: { email: person.email, password: PASSWORD } }))
        .status,
    ).toBe(429);

    expect((await s.client().request("POST", "/auth/forgot-password", { body: { email: person.email } })).status).toBe(
      204,
    );
    const token = await s.resetTokenOf(person.id);
    const reset = await s
      .client()
      .request("POST", "/auth/reset-password", { body: { token, new_password: NEW_PASSWORD } });
    expect(reset.status).toBe(204);
    expect(reset.text).toBe("");

    expectProblem(await s.client().request("POST", "/v1/auth/refresh", { cookie: session.cookie }), 401);
    expectProblem(
      await s
        .client()
        .request("POST", "/v1/auth/reset-password", { body: { token, new_password: "another-fine-passphrase-9" } }),
      422,
      "invalid_reset_token",
    );
    expect(
      (await s.client().request("POST", "/v1/auth/login", { body: { email: person.email, password: PASSWORD } }))
        .status,
    ).toBe(401);
    await signIn(s.client(), person.email, NEW_PASSWORD);
  });

  it("answers 422 for an unknown or expired token and outside the field bounds", async () => {
    const person = await s.person();
    await s.client().request("POST", "/v1/auth/forgot-password", { body: { email: person.email } });
    const token = await s.resetTokenOf(person.id);
    await s.sql("update password_reset_tokens set expires_at = now() - interval '1 second' where user_id = ?", [
      person.id,
    ]);
    const bodies = [
      { token, new_password: NEW_PASSWORD },
      { token: "not-a-token-at-all", new_password: NEW_PASSWORD },
      { token: "short77", new_password: NEW_PASSWORD },
      { token: "t".repeat(257), new_password: NEW_PASSWORD },
      { token: "t".repeat(64), new_password: "seven77" },
      { token: "t".repeat(64), new_password: "password1" },
    ];
    for (const body of bodies)
      expectProblem(await s.client().request("POST", "/v1/auth/reset-password", { body }), 422);
  });

  it("allows PASSWORD_RESET_CONFIRM_RATE_LIMIT per client address", async () => {
    const client = s.client();
    const body = { token: "not-a-token-at-all", new_password: NEW_PASSWORD };
    for (let i = 0; i < 3; i++)
      expect((await client.request("POST", "/v1/auth/reset-password", { body })).status).toBe(422);
    expectProblem(await client.request("POST", "/v1/auth/reset-password", { body }), 429, "rate_limited");
  });
});

describe("/openapi.json", () => {
  it("documents every account route under both prefixes with the bounds the gateway enforces", async () => {
    const doc = (await s.client().request("GET", "/openapi.json")).json as {
      paths: Record<
        string,
        Record<
          string,
          {
            requestBody?: {
              content: Record<string, { schema: { properties: Record<string, Record<string, unknown>> } }>;
            };
          }
        >
      >;
    };
    const routes = [
      ["post", "register"],
      ["post", "login"],
      ["post", "login/mfa"],
      ["post", "refresh"],
      ["post", "logout"],
      ["get", "me"],
      ["post", "forgot-password"],
      ["post", "reset-password"],
      ["post", "mfa/totp/setup"],
      ["post", "mfa/totp/confirm"],
      ["delete", "mfa"],
    ] as const;
    for (const prefix of AUTH_PREFIXES)
      for (const [method, path] of routes) expect(doc.paths[`${prefix}/${path}`]?.[method]).toBeDefined();
    const register = doc.paths["/v1/auth/register"]!.post!.requestBody!.content["application/json"]!.schema.properties;
    expect(register.password).toMatchObject({ minLength: 8, maxLength: 256 });
    const completion = doc.paths["/auth/login/mfa"]!.post!.requestBody!.content["application/json"]!.schema.properties;
    expect(completion).toMatchObject({
      code: { minLength: 1, maxLength: 64 },
      mfa_token: { minLength: 1, maxLength: 4096 },
    });
    for (const path of ["/v1/admin/users", "/v1/admin/users/{id}/deactivate", "/v1/admin/users/{id}/mfa"])
      expect(doc.paths[path]).toBeDefined();
  });
});
