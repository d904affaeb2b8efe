// /v1/admin/users through the gateway against a real identity: hidden (404) from everyone but super_admin, the
// list's filters and page bounds, and what each change does to the person's sign-in.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { PASSWORD, signIn, startIdentityStack, type Answer, type IdentityStack } from "./identity-stack.ts";

const NEW_PASSWORD = "amber-lantern-orchard-77";
const MISSING = "0191f2c4-8d2a-7c3e-9f10-1234567890ab";
let s: IdentityStack;
let admin: string;

beforeAll(async () => {
  s = await startIdentityStack({ identityEnv: { LOGIN_THROTTLE_FAILURES: "2", LOGIN_THROTTLE_WINDOWS: "600" } });
  admin = (await signIn(s.client(), (await s.person({ superAdmin: true })).email)).accessToken;
}, 60_000);

afterAll(async () => {
  await s?.close();
});

const asAdmin = (method: string, path: string, body?: unknown) =>
  s.client().request(method, path, { bearer: admin, ...(body === undefined ? {} : { body }) });

function expectProblem(answer: Answer, status: number, code?: string): void {
  expect(answer.status).toBe(status);
  expect(answer.headers["content-type"]).toMatch(/^application\/problem\+json/);
  if (code) expect(answer.json.code).toBe(code);
}

describe("who may call", () => {
  it("answers 404 to a signed-in person who is not super_admin, before validating anything", async () => {
    const person = await s.person();
    const bearer = (await signIn(s.client(), person.email)).accessToken;
    const routes = [
      ["GET", "/v1/admin/users"],
      ["GET", "/v1/admin/users?page_size=9999"],
      ["GET", `/v1/admin/users/${person.id}`],
      ["GET", "/v1/admin/users/not-a-uuid"],
      ["PATCH", `/v1/admin/users/${person.id}/deactivate`],
      ["PATCH", `/v1/admin/users/${person.id}/activate`],
      ["POST", `/v1/admin/users/${person.id}/password-reset`],
      ["POST", `/v1/admin/users/${person.id}/unlock-sign-in`],
      ["DELETE", `/v1/admin/users/${person.id}/mfa`],
    ] as const;
    for (const [method, path] of routes)
      expectProblem(await s.client().request(method, path, { bearer }), 404, "not_found");
    expectProblem(await s.client().request("GET", "/v1/admin/users"), 401);
  });
});

describe("the list", () => {
  let marker: string;
  let inactive: string;

  beforeAll(async () => {
    marker = `Marker${Date.now()}`;
    for (let i = 0; i < 3; i++) {
      await s.client().request("POST", "/v1/auth/register", {
        body: { email: s.email(), password: PASSWORD, full_name: `${marker} ${i}` },
      });
    }
    const list = await asAdmin("GET", `/v1/admin/users?q=${marker}`);
    inactive = (list.json.items as { id: string }[])[1]!.id;
    expect((await asAdmin("PATCH", `/v1/admin/users/${inactive}/deactivate`)).status).toBe(200);
  });

  it("pages the admin view, oldest first, filtered by q", async () => {
    const page1 = await asAdmin("GET", `/v1/admin/users?q=${marker.toLowerCase()}&page_size=2`);
    expect(page1.status).toBe(200);
    expect(page1.json).toMatchObject({ total: 3, page: 1, page_size: 2 });
    const items = page1.json.items as Record<string, unknown>[];
    expect(items.map((u) => u.full_name)).toEqual([`${marker} 0`, `${marker} 1`]);
    expect(Object.keys(items[0]!).sort()).toEqual([
      "created_at",
      "email",
      "full_name",
      "id",
      "is_active",
      "is_superuser",
      "last_login_at",
      "memberships",
      "mfa_enabled",
      "scan_count",
      "updated_at",
    ]);
    const page2 = await asAdmin("GET", `/v1/admin/users?q=${marker}&page_size=2&page=2`);
    expect((page2.json.items as unknown[]).length).toBe(1);
  });

  it("filters by is_active, is_superuser and mfa_enabled", async () => {
    const ids = async (query: string) =>
      ((await asAdmin("GET", `/v1/admin/users?q=${marker}&${query}`)).json.items as { id: string }[]).map((u) => u.id);
    expect(await ids("is_active=false")).toEqual([inactive]);
    expect(await ids("is_active=true")).toHaveLength(2);
    expect(await ids("is_superuser=true")).toEqual([]);
    expect(await ids("mfa_enabled=false")).toHaveLength(3);
    const supers = (await asAdmin("GET", "/v1/admin/users?is_superuser=true")).json.items as {
      is_superuser: boolean;
    }[];
    expect(supers.length).toBeGreaterThan(0);
    expect(supers.every((u) => u.is_superuser)).toBe(true);
  });

  it("answers 422 outside the bounds of page, page_size, q and the flags", async () => {
    for (const query of [
      "page=0",
      "page=1000001",
      "page_size=0",
      "page_size=201",
      `q=${"q".repeat(201)}`,
      "is_active=yes",
      "mfa_enabled=1",
    ]) {
      expectProblem(await asAdmin("GET", `/v1/admin/users?${query}`), 422, "validation_error");
    }
    expect((await asAdmin("GET", "/v1/admin/users?page_size=200&page=1000000")).json).toMatchObject({
      items: [],
      page: 1000000,
      page_size: 200,
    });
  });
});

describe("one user", () => {
  it("answers the admin view, and 404 for an unknown id", async () => {
    const person = await s.person();
    const answer = await asAdmin("GET", `/v1/admin/users/${person.id}`);
    expect(answer.json).toMatchObject({
      id: person.id,
      email: person.email,
      is_active: true,
      scan_count: 0,
      last_login_at: null,
    });
    expectProblem(await asAdmin("GET", `/v1/admin/users/${MISSING}`), 404);
    expectProblem(await asAdmin("GET", "/v1/admin/users/not-a-uuid"), 422);
  });

  it("deactivates: the bearer, the refresh cookie and the password stop working; activation restores sign-in", async () => {
    const person = await s.person();
    const session = await signIn(s.client(), person.email);
    const off = await asAdmin("PATCH", `/v1/admin/users/${person.id}/deactivate`);
    expect(off.json).toMatchObject({ id: person.id, is_active: false });
    expectProblem(await s.client().request("GET", "/v1/auth/me", { bearer: session.accessToken }), 401);
    expectProblem(await s.client().request("POST", "/v1/auth/refresh", { cookie: session.cookie }), 401);
    expectProblem(
      await s.client().request("POST", "/v1/auth/login", { body: { email: person.email, password: PASSWORD } }),
      401,
      "invalid_credentials",
    );
    expect((await asAdmin("PATCH", `/v1/admin/users/${person.id}/activate`)).json).toMatchObject({ is_active: true });
    expectProblem(await s.client().request("POST", "/v1/auth/refresh", { cookie: session.cookie }), 401);
    await signIn(s.client(), person.email);
    for (const change of ["deactivate", "activate"])
      expectProblem(await asAdmin("PATCH", `/v1/admin/users/${MISSING}/${change}`), 404);
  });

  it("issues a password reset without the cooldown: 204, and the link's token works once", async () => {
    const person = await s.person();
    expect(
      (await s.client().request("POST", "/v1/auth/forgot-password", { body: { email: person.email } })).status,
    ).toBe(204);
    const issued = await asAdmin("POST", `/v1/admin/users/${person.id}/password-reset`);
    expect(issued.status).toBe(204);
    expect(issued.text).toBe("");
    const token = await s.resetTokenOf(person.id, 2);
    expect(
      (await s.client().request("POST", "/v1/auth/reset-password", { body: { token, new_password: NEW_PASSWORD } }))
        .status,
    ).toBe(204);
    expectProblem(
      await s.client().request("POST", "/v1/auth/reset-password", { body: { token, new_password: PASSWORD } }),
      422,
      "invalid_reset_token",
    );
    await signIn(s.client(), person.email, NEW_PASSWORD);
    expectProblem(await asAdmin("POST", `/v1/admin/users/${MISSING}/password-reset`), 404);
  });

  it("unlocks a throttled sign-in", async () => {
    const person = await s.person();
    for (let i = 0; i < 2; i++)
      await s
        .client()
        .request("POST", "/v1/auth/login", { body: { email: person.email, password: "wrong-password-1" } });
    expectProblem(
      await s.client().request("POST", "/v1/auth/login", { body: { email: person.email, password: PASSWORD } }),
      429,
      "sign_in_throttled",
    );
    expect((await asAdmin("POST", `/v1/admin/users/${person.id}/unlock-sign-in`)).status).toBe(204);
    await signIn(s.client(), person.email);
    expectProblem(await asAdmin("POST", `/v1/admin/users/${MISSING}/unlock-sign-in`), 404);
  });

  it("clears a second factor: sign-in is one step again and the owner may enrol anew", async () => {
    const person = await s.person();
    const { accessToken } = await signIn(s.client(), person.email);
    await s.sql("update users set mfa_enabled = true where id = ?", [person.id]);
    expect(
      (await s.client().request("POST", "/v1/auth/login", { body: { email: person.email, password: PASSWORD } })).json
        .mfa_required,
    ).toBe(true);
    expect((await asAdmin("DELETE", `/v1/admin/users/${person.id}/mfa`)).status).toBe(204);
    expect((await asAdmin("GET", `/v1/admin/users/${person.id}`)).json.mfa_enabled).toBe(false);
    await signIn(s.client(), person.email);
    expect((await s.client().request("POST", "/v1/auth/mfa/totp/setup", { bearer: accessToken })).status).toBe(200);
    expectProblem(await asAdmin("DELETE", `/v1/admin/users/${MISSING}/mfa`), 404);
  });
});
