// No secret leaks: a whole account flow through the gateway and a real identity, with every log line of both
// kept and every answer recorded. Passwords, access, refresh and pending tokens, the TOTP secret and codes,
// recovery codes, the reset token and a raw API key never appear in a log line, nor in any answer but the one
// that issues them.
import { afterAll, beforeAll, expect, it } from "@jest/globals";
import { totp } from "@sca/testkit";
import {
  PASSWORD,
  refreshCookieSet,
  startIdentityStack,
  type Answer,
  type IdentityStack,
  type Client,
  type RequestOptions,
} from "./identity-stack.ts";

const NEW_PASSWORD = "amber-lantern-orchard-77";
const WRONG_PASSWORD = "wrong-but-still-secret-91";
let s: IdentityStack;

beforeAll(async () => {
  s = await startIdentityStack();
}, 60_000);

afterAll(async () => {
  await s?.close();
});

interface Recorded {
  label: string;
  text: string;
}

it("keeps every secret out of the logs and out of every answer but the one issuing it", async () => {
  const answers: Recorded[] = [];
  /** Secret value -> the label of the answer that may carry it (null: none may). */
  const secrets = new Map<string, string | null>();
  const client = (): Client & {
    call(label: string, method: string, path: string, opts?: RequestOptions): Promise<Answer>;
  } => {
    const c = s.client();
    return {
      ...c,
      async call(label, method, path, opts) {
        const answer = await c.request(method, path, opts);
        answers.push({ label, text: `${JSON.stringify(answer.headers)}\n${answer.text}` });
        return answer;
      },
    };
  };
  const issued = (label: string, ...values: string[]) => values.forEach((v) => secrets.set(v, label));
  const never = (...values: string[]) => values.forEach((v) => secrets.set(v, null));
  const tokensOf = (label: string, answer: Answer) => {
    expect(answer.status).toBe(200);
    issued(label, answer.json.access_token as string, refreshCookieSet(answer)!);
    return { bearer: answer.json.access_token as string, cookie: `refresh_token=${refreshCookieSet(answer)}` };
  };

  const c = client();
  const email = s.email();
  never(PASSWORD, NEW_PASSWORD, WRONG_PASSWORD);
  expect((await c.call("register", "POST", "/v1/auth/register", { body: { email, password: PASSWORD } })).status).toBe(
    201,
  );
  expect(
    (await c.call("failed login", "POST", "/auth/login", { body: { email, password: WRONG_PASSWORD } })).status,
  ).toBe(401);
  const first = tokensOf(
    "login",
    await c.call("login", "POST", "/v1/auth/login", { body: { email, password: PASSWORD } }),
  );
  expect((await c.call("me", "GET", "/v1/auth/me", { bearer: first.bearer })).status).toBe(200);
  const second = tokensOf("refresh", await c.call("refresh", "POST", "/v1/auth/refresh", { cookie: first.cookie }));

  const setup = await c.call("setup", "POST", "/v1/auth/mfa/totp/setup", { bearer: second.bearer });
  const totpSecret = setup.json.secret as string;
  issued("setup", totpSecret);
  const enrolCode = totp(totpSecret, Date.now());
  const confirm = await c.call("confirm", "POST", "/v1/auth/mfa/totp/confirm", {
    bearer: second.bearer,
    body: { code: enrolCode },
  });
  const recoveryCodes = confirm.json.recovery_codes as string[];
  issued("confirm", ...recoveryCodes);
  // Reuse ends the sign-in, its access tokens too (after the second factor was set up with one of them).
  expect((await c.call("reuse", "POST", "/auth/refresh", { cookie: first.cookie })).status).toBe(401);
  expect((await c.call("ended", "GET", "/v1/auth/me", { bearer: second.bearer })).status).toBe(401);

  const pending = await client().call("pending login", "POST", "/v1/auth/login", {
    body: { email, password: PASSWORD },
  });
  issued("pending login", pending.json.mfa_token as string);
  const signInCode = totp(totpSecret, Date.now() + 30_000);
  never(enrolCode, signInCode);
  const third = tokensOf(
    "completion",
    await client().call("completion", "POST", "/auth/login/mfa", {
      body: { mfa_token: pending.json.mfa_token, code: signInCode },
    }),
  );
  expect(
    (await c.call("remove mfa", "DELETE", "/v1/auth/mfa", { bearer: third.bearer, body: { code: recoveryCodes[0] } }))
      .status,
  ).toBe(204);

  expect((await c.call("forgot", "POST", "/v1/auth/forgot-password", { body: { email } })).status).toBe(204);
  const resetToken = await s.resetTokenOf(
    (await c.call("me again", "GET", "/v1/auth/me", { bearer: third.bearer })).json.id as string,
  );
  never(resetToken);
  expect(
    (await c.call("reset", "POST", "/auth/reset-password", { body: { token: resetToken, new_password: NEW_PASSWORD } }))
      .status,
  ).toBe(204);
  const fourth = tokensOf(
    "new login",
    await client().call("new login", "POST", "/v1/auth/login", { body: { email, password: NEW_PASSWORD } }),
  );
  expect(
    (await c.call("logout", "POST", "/v1/auth/logout", { bearer: fourth.bearer, cookie: fourth.cookie })).status,
  ).toBe(204);

  const adminEmail = (await s.person({ superAdmin: true })).email;
  const admin = tokensOf(
    "admin login",
    await client().call("admin login", "POST", "/v1/auth/login", { body: { email: adminEmail, password: PASSWORD } }),
  );
  const key = await c.call("api key", "POST", "/v1/api-keys", {
    bearer: admin.bearer,
    body: { name: "ci", scope: "org" },
  });
  expect(key.status).toBe(201);
  issued("api key", key.json.raw_key as string);
  expect((await c.call("key use", "GET", "/v1/api-keys", { bearer: key.json.raw_key as string })).status).toBe(403);
  expect((await c.call("key on me", "GET", "/v1/auth/me", { bearer: key.json.raw_key as string })).status).toBe(401);

  // Let the last request lines and identity's outbox relay write before reading.
  await new Promise((r) => setTimeout(r, 300));
  const logs = s.logText();
  expect(logs).toContain("/v1/auth/login");
  expect(logs).toContain("identity-test");
  for (const [secret, issuer] of secrets) {
    // Six-digit codes are looked for as whole JSON strings: as bare digits they turn up inside ids and times.
    const needle = /^\d{6}$/.test(secret) ? `"${secret}"` : secret;
    expect({ secret, inLogs: logs.includes(needle) }).toEqual({ secret, inLogs: false });
    const carriers = answers.filter((a) => a.text.includes(needle)).map((a) => a.label);
    expect({ secret, carriers }).toEqual({ secret, carriers: issuer === null ? [] : [issuer] });
  }
}, 30_000);
