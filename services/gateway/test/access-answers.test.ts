// Cached access-token answers through the gateway against a real identity (docs/gateway-authentication.md): an
// answer is cached under the token's session, and every change that ends the session or changes the caller holds
// on the very next request: logout, refresh-token reuse, deactivation, a password reset, a demotion.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { signIn, startIdentityStack, type Client, type IdentityStack } from "./identity-stack.ts";

const NEW_PASSWORD = "amber-lantern-orchard-77";
let s: IdentityStack;
let admin: string;

beforeAll(async () => {
  s = await startIdentityStack();
  admin = (await signIn(s.client(), (await s.person({ superAdmin: true })).email)).accessToken;
}, 60_000);

afterAll(async () => {
  await s?.close();
});

const asAdmin = (method: string, path: string, body?: unknown) =>
  s.client().request(method, path, { bearer: admin, ...(body === undefined ? {} : { body }) });

function sessionOf(accessToken: string): string {
  const claims = JSON.parse(Buffer.from(accessToken.split(".")[1]!, "base64url").toString()) as { sid?: string };
  expect(claims.sid).toMatch(/^[0-9a-f-]{36}$/);
  return claims.sid!;
}

const entryOf = (accessToken: string) => s.redis.get(`${s.answerNamespace}access:session:${sessionOf(accessToken)}`);

/** A signed-in person whose answer the gateway has cached (two requests from the same client). */
async function cachedSession(o: { superAdmin?: boolean } = {}) {
  const person = await s.person(o);
  const client: Client = s.client();
  const session = await signIn(client, person.email);
  const path = o.superAdmin ? "/v1/admin/users" : "/v1/auth/me";
  for (let i = 0; i < 2; i++)
    expect((await client.request("GET", path, { bearer: session.accessToken })).status).toBe(200);
  const entry = await entryOf(session.accessToken);
  expect(JSON.parse(entry!)).toMatchObject({ caller_token: expect.any(String), epoch: expect.any(String) });
  expect(entry).not.toContain(session.accessToken);
  return { person, client, ...session };
}

describe("the cache of access-token answers", () => {
  it("answers from the entry: a demotion behind identity's back (SQL) is not seen until identity is asked", async () => {
    const { person, client, accessToken } = await cachedSession({ superAdmin: true });
    await s.sql("update users set is_superuser = false where id = ?", [person.id]);
    expect((await client.request("GET", "/v1/admin/users", { bearer: accessToken })).status).toBe(200);
    await s.redis.del(`${s.answerNamespace}access:session:${sessionOf(accessToken)}`);
    expect((await client.request("GET", "/v1/admin/users", { bearer: accessToken })).status).toBe(404);
  });

  it("does not answer another client address from the entry: identity is asked, the request still succeeds", async () => {
    const { accessToken } = await cachedSession();
    const before = await entryOf(accessToken);
    expect((await s.client().request("GET", "/v1/auth/me", { bearer: accessToken })).status).toBe(200);
    expect(await entryOf(accessToken)).not.toBe(before);
  });

  it("refuses a logged-out token on the very next request", async () => {
    const { client, accessToken, cookie } = await cachedSession();
    expect((await client.request("POST", "/v1/auth/logout", { bearer: accessToken, cookie })).status).toBe(204);
    expect((await client.request("GET", "/v1/auth/me", { bearer: accessToken })).status).toBe(401);
    expect((await s.client().request("GET", "/v1/auth/me", { bearer: accessToken })).status).toBe(401);
    // Logout alone admits the ended session's token: a second logout is 204, as before.
    expect((await client.request("POST", "/v1/auth/logout", { bearer: accessToken, cookie })).status).toBe(204);
  });

  it("refuses the tokens of a sign-in ended by refresh-token reuse", async () => {
    const { client, accessToken, cookie } = await cachedSession();
    expect((await client.request("POST", "/v1/auth/refresh", { cookie })).status).toBe(200);
    expect((await client.request("POST", "/v1/auth/refresh", { cookie })).status).toBe(401);
    expect((await client.request("GET", "/v1/auth/me", { bearer: accessToken })).status).toBe(401);
  });

  it("refuses a deactivated person's token on the very next request", async () => {
    const { person, client, accessToken } = await cachedSession();
    expect((await asAdmin("PATCH", `/v1/admin/users/${person.id}/deactivate`)).status).toBe(200);
    expect((await client.request("GET", "/v1/auth/me", { bearer: accessToken })).status).toBe(401);
  });

  it("refuses every earlier token after a password reset", async () => {
    const { person, client, accessToken } = await cachedSession();
    expect((await asAdmin("POST", `/v1/admin/users/${person.id}/password-reset`)).status).toBe(204);
    const token = await s.resetTokenOf(person.id);
    expect(
      (await s.client().request("POST", "/v1/auth/reset-password", { body: { token, new_password: NEW_PASSWORD } }))
        .status,
    ).toBe(204);
    expect((await client.request("GET", "/v1/auth/me", { bearer: accessToken })).status).toBe(401);
    expect((await signIn(s.client(), person.email, NEW_PASSWORD)).accessToken).toBeTruthy();
  });

  it("hides the admin surface from a demoted super_admin on the very next request", async () => {
    const { person, client, accessToken } = await cachedSession({ superAdmin: true });
    const team = await asAdmin("POST", "/v1/admin/teams", { name: "Demotion", slug: `demotion-${Date.now()}` });
    expect(team.status).toBe(201);
    const demoted = await asAdmin("PATCH", `/v1/admin/users/${person.id}/role`, {
      role: "developer",
      team_id: team.json.id,
    });
    expect(demoted.status).toBe(200);
    expect((await client.request("GET", "/v1/admin/users", { bearer: accessToken })).status).toBe(404);
    const me = await client.request("GET", "/v1/auth/me", { bearer: accessToken });
    expect(me.json).toMatchObject({ is_superuser: false });
  });
});
