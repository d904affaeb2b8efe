// Accounts and sessions through a real identity server (gRPC), real PostgreSQL and Kafka.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { toJsonString } from "@bufbuild/protobuf";
import { ConnectError, type Code } from "@connectrpc/connect";
import { fromConnectError } from "@sca/problem";
import { TOPICS } from "@sca/kafka";
import { generateSync } from "otplib";
import { PasswordResetRequestedSchema } from "@sca/proto/sca/events/v1/accounts_pb.ts";
import { AuditEventSchema } from "@sca/proto/sca/events/v1/audit_pb.ts";
import { UserViewSchema, type Session } from "@sca/proto/sca/identity/v1/accounts_pb.ts";
import { EventReader, TEST_SECRET } from "@sca/testkit";
import { verifyAccessToken } from "../src/domain/access-token.ts";
import { hashPassword } from "../src/domain/password-hash.ts";
import { insertAccount } from "../src/store/accounts.ts";
import { sweepSessionState } from "../src/store/session-sweep.ts";
import { startIdentity, type IdentityHarness } from "./support/identity-harness.ts";

const PASSWORD = "violet-harbour-engine-42";
const client = { ip: "198.51.100.7", userAgent: "jest" };
let h: IdentityHarness;
let domainEvents: EventReader;
let auditEvents: EventReader;
let n = 0;
const newEmail = () => `person${++n}.${Date.now()}@example.com`;

async function failure(
  call: Promise<unknown>,
): Promise<{ code: Code; status: number; problemCode: string | undefined; extensions: Record<string, unknown> }> {
  try {
    await call;
  } catch (err) {
    if (!(err instanceof ConnectError)) throw err;
    const problem = fromConnectError(err);
    return {
      code: err.code,
      status: problem.status,
      problemCode: problem.init.code,
      extensions: problem.init.extensions ?? {},
    };
  }
  throw new Error("expected the call to fail");
}

async function registered(email = newEmail()): Promise<{ id: string; email: string }> {
  const { user } = await h.accounts.register({ email, password: PASSWORD, fullName: "Ada Lovelace", client });
  return { id: user!.id, email };
}

async function signIn(email: string, password = PASSWORD): Promise<Session> {
  const res = await h.accounts.login({ email, password, client });
  if (res.outcome.case !== "session") throw new Error("expected a session");
  return res.outcome.value;
}

async function superAdmin(): Promise<string> {
  const account = await insertAccount(h.orm.em.fork(), {
    email: newEmail(),
    fullName: null,
    passwordHash: await hashPassword(PASSWORD),
    isSuperuser: true,
  });
  return account!.id;
}

beforeAll(async () => {
  h = await startIdentity({
    env: { LOGIN_THROTTLE_FAILURES: "3", LOGIN_THROTTLE_WINDOWS: "2,4", PASSWORD_RESET_EMAIL_COOLDOWN_SECONDS: "300" },
  });
  domainEvents = await EventReader.start(h.kafka, TOPICS.domainEvents);
  auditEvents = await EventReader.start(h.kafka, TOPICS.auditEvents);
}, 60_000);

afterAll(async () => {
  await domainEvents?.stop();
  await auditEvents?.stop();
  await h?.close();
}, 120_000);

describe("register", () => {
  it("creates the user and answers the public view without any password", async () => {
    const email = newEmail();
    const { user } = await h.accounts.register({
      email: `  ${email.toUpperCase()} `,
      password: PASSWORD,
      fullName: "Ada",
      client,
    });
    expect(user).toMatchObject({
      email,
      fullName: "Ada",
      isActive: true,
      isSuperuser: false,
      mfaEnabled: false,
      memberships: [],
    });
    expect(toJsonString(UserViewSchema, user!)).not.toContain(PASSWORD);
    const [row] = await h.orm.em
      .getConnection()
      .execute<{ password_hash: string }[]>("select password_hash from users where id = ?", [user!.id]);
    expect(row!.password_hash).toMatch(/^\$scrypt\$/);
  });

  it("answers 409 for an address already registered, in any case", async () => {
    const { email } = await registered();
    expect(
      await failure(h.accounts.register({ email: email.toUpperCase(), password: PASSWORD, client })),
    ).toMatchObject({ status: 409, problemCode: "email_registered" });
  });

  it("answers 422 for common, short or long passwords and bad addresses", async () => {
    for (const password of ["password1", "Qwerty123", "short", "x".repeat(257)]) {
      expect(await failure(h.accounts.register({ email: newEmail(), password, client }))).toMatchObject({
        status: 422,
      });
    }
    expect(await failure(h.accounts.register({ email: "not-an-address", password: PASSWORD, client }))).toMatchObject({
      status: 422,
    });
  });

  it("answers 404 when self-registration is off", async () => {
    const off = await startIdentity({ env: { AUTH_SELF_REGISTRATION: "false" } });
    try {
      expect(await failure(off.accounts.register({ email: newEmail(), password: PASSWORD, client }))).toMatchObject({
        status: 404,
      });
    } finally {
      await off.close();
    }
  });
});

describe("login, refresh, logout", () => {
  it("signs in with an access token for the user and a refresh token; stamps last_login_at; audits", async () => {
    const { id, email } = await registered();
    const session = await signIn(email);
    expect((await verifyAccessToken(session.accessToken, TEST_SECRET))?.userId).toBe(id);
    expect(session.expiresIn).toBe(1800);
    expect(session.refreshToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(session.refreshExpiresAt!.seconds - BigInt(Math.floor(Date.now() / 1000))).toBeGreaterThan(
      7n * 86400n - 60n,
    );
    const admin = await superAdmin();
    const { user } = await h.admin.getUser({ userId: id }, await h.as(admin));
    expect(user!.lastLoginAt).toBeDefined();
    const [audit] = await auditEvents.waitFor(
      AuditEventSchema,
      (e) => e.targetId === id && e.action === "auth.login.succeeded",
    );
    expect(audit!.actor).toMatchObject({ userId: id, ip: client.ip });
  });

  it("answers 401 for a wrong password and for an unknown address alike, and audits both", async () => {
    const { id, email } = await registered();
    expect(await failure(h.accounts.login({ email, password: "wrong-password-1", client }))).toMatchObject({
      status: 401,
      problemCode: "invalid_credentials",
    });
    const unknown = newEmail();
    expect(await failure(h.accounts.login({ email: unknown, password: PASSWORD, client }))).toMatchObject({
      status: 401,
      problemCode: "invalid_credentials",
    });
    await auditEvents.waitFor(
      AuditEventSchema,
      (e) => e.targetId === id && e.action === "auth.login.failed" && e.details.reason === "bad_credentials",
    );
    await auditEvents.waitFor(
      AuditEventSchema,
      (e) => e.actor?.email === unknown && e.targetId === "" && e.outcome === "failure",
    );
  });

  it("answers 422 for an empty or over-long password", async () => {
    expect(await failure(h.accounts.login({ email: newEmail(), password: "", client }))).toMatchObject({ status: 422 });
    expect(await failure(h.accounts.login({ email: newEmail(), password: "x".repeat(257), client }))).toMatchObject({
      status: 422,
    });
  });

  it("rotates the refresh token on each use; reusing a rotated one revokes the whole family", async () => {
    const { id, email } = await registered();
    const first = await signIn(email);
    const other = await signIn(email); // a second session (another device) must survive
    const second = (await h.accounts.refresh({ refreshToken: first.refreshToken, client })).session!;
    expect(second.refreshToken).not.toBe(first.refreshToken);
    expect((await verifyAccessToken(second.accessToken, TEST_SECRET))?.userId).toBe(id);
    const third = (await h.accounts.refresh({ refreshToken: second.refreshToken, client })).session!;

    expect(await failure(h.accounts.refresh({ refreshToken: first.refreshToken, client }))).toMatchObject({
      status: 401,
    });
    expect(await failure(h.accounts.refresh({ refreshToken: third.refreshToken, client }))).toMatchObject({
      status: 401,
    });
    await auditEvents.waitFor(AuditEventSchema, (e) => e.targetId === id && e.action === "auth.refresh.reuse_detected");
    expect((await h.accounts.refresh({ refreshToken: other.refreshToken, client })).session).toBeDefined();
  });

  it("answers 401 for unknown or expired refresh tokens", async () => {
    expect(await failure(h.accounts.refresh({ refreshToken: "made-up", client }))).toMatchObject({ status: 401 });
    expect(await failure(h.accounts.refresh({ refreshToken: "", client }))).toMatchObject({ status: 401 });
    const { email } = await registered();
    const s = await signIn(email);
    await h.orm.em.getConnection().execute("update refresh_tokens set expires_at = now() - interval '1 second'");
    expect(await failure(h.accounts.refresh({ refreshToken: s.refreshToken, client }))).toMatchObject({ status: 401 });
  });

  it("logout revokes the session and is idempotent", async () => {
    const { id, email } = await registered();
    const s = await signIn(email);
    await h.accounts.logout({ refreshToken: s.refreshToken, client });
    await h.accounts.logout({ refreshToken: s.refreshToken, client });
    await h.accounts.logout({ refreshToken: "", client });
    await h.accounts.logout({ refreshToken: "never-issued", client });
    expect(await failure(h.accounts.refresh({ refreshToken: s.refreshToken, client }))).toMatchObject({ status: 401 });
    const logouts = await auditEvents.waitFor(AuditEventSchema, (e) => e.targetId === id && e.action === "auth.logout");
    expect(logouts).toHaveLength(1);
  });
});

describe("me", () => {
  it("answers the caller with memberships oldest first and mfa_enabled", async () => {
    const { id } = await registered();
    const conn = h.orm.em.getConnection();
    const [org] = await conn.execute<{ id: string }[]>(
      "insert into organizations (id, name, slug) values (gen_random_uuid(), 'Org', ?) returning id",
      [`org-${id.slice(0, 8)}`],
    );
    for (const [slug, offset] of [
      ["newer", "1 hour"],
      ["older", "2 hours"],
    ] as const) {
      const [g] = await conn.execute<{ id: string }[]>(
        "insert into groups (id, organization_id, name, slug) values (gen_random_uuid(), ?, ?, ?) returning id",
        [org!.id, slug, `${slug}-${id.slice(0, 8)}`],
      );
      await conn.execute(
        `insert into memberships (id, user_id, group_id, role, created_at) values (gen_random_uuid(), ?, ?, 'developer', now() - interval '${offset}')`,
        [id, g!.id],
      );
    }
    const { user } = await h.accounts.getMe({}, await h.as(id));
    expect(user!.mfaEnabled).toBe(false);
    expect(user!.memberships.map((m) => m.teamName)).toEqual(["older", "newer"]);
    expect(user!.memberships[0]).toMatchObject({ role: "developer", organizationId: org!.id });
  });

  it("answers 401 without a caller", async () => {
    expect(await failure(h.accounts.getMe({}))).toMatchObject({ status: 401 });
  });
});

describe("failed-sign-in throttle", () => {
  it("refuses the address after consecutive failures, even with the right password, then lets it try again", async () => {
    const { email } = await registered();
    for (let i = 0; i < 2; i++)
      expect(await failure(h.accounts.login({ email, password: "wrong-password-1", client }))).toMatchObject({
        status: 401,
      });
    expect(await failure(h.accounts.login({ email, password: "wrong-password-1", client }))).toMatchObject({
      status: 401,
    });
    const refused = await failure(h.accounts.login({ email, password: PASSWORD, client }));
    expect(refused).toMatchObject({ status: 429, problemCode: "sign_in_throttled" });
    // The window's rest, in whole seconds: 2 right after the third failure, 1 once a loaded machine took a second.
    expect([1, 2]).toContain(refused.extensions.retry_after_seconds);
    await new Promise((r) => setTimeout(r, 2100));
    expect((await h.accounts.login({ email, password: PASSWORD, client })).outcome.case).toBe("session");
    // the success cleared the count
    expect(await failure(h.accounts.login({ email, password: "wrong-password-1", client }))).toMatchObject({
      status: 401,
    });
  });

  it("throttles unknown addresses the same way (no enumeration)", async () => {
    const email = newEmail();
    for (let i = 0; i < 3; i++) await failure(h.accounts.login({ email, password: "wrong-password-1", client }));
    expect(await failure(h.accounts.login({ email, password: "wrong-password-1", client }))).toMatchObject({
      status: 429,
    });
  });

  it("is cleared by the administrator's unlock (audited) and by a password reset", async () => {
    const admin = await superAdmin();
    const { id, email } = await registered();
    for (let i = 0; i < 3; i++) await failure(h.accounts.login({ email, password: "wrong-password-1", client }));
    expect(await failure(h.accounts.login({ email, password: PASSWORD, client }))).toMatchObject({ status: 429 });
    await h.admin.unlockSignIn({ userId: id }, await h.as(admin));
    expect((await h.accounts.login({ email, password: PASSWORD, client })).outcome.case).toBe("session");
    await auditEvents.waitFor(
      AuditEventSchema,
      (e) => e.targetId === id && e.action === "user.sign_in_unlocked" && e.actor?.userId === admin,
    );

    for (let i = 0; i < 3; i++) await failure(h.accounts.login({ email, password: "wrong-password-1", client }));
    await h.admin.issuePasswordReset({ userId: id }, await h.as(admin));
    const [event] = await domainEvents.waitFor(PasswordResetRequestedSchema, (e) => e.userId === id);
    const token = new URL(event!.resetUrl).searchParams.get("token")!;
    await h.accounts.resetPassword({ token, newPassword: "cobalt-meadow-river-7", client });
    expect((await h.accounts.login({ email, password: "cobalt-meadow-river-7", client })).outcome.case).toBe("session");
  });
});

describe("password reset", () => {
  it("publishes the reset e-mail event; the one-shot token resets the password and ends every session", async () => {
    const { id, email } = await registered();
    const s = await signIn(email);
    const first = await h.accounts.forgotPassword({ email, client });
    expect(first.retryAfterSeconds).toBe(0);
    const [event] = await domainEvents.waitFor(PasswordResetRequestedSchema, (e) => e.userId === id);
    expect(event).toMatchObject({ email, fullName: "Ada Lovelace", requestedBy: "self_service" });
    const url = new URL(event!.resetUrl);
    expect(`${url.origin}${url.pathname}`).toBe("https://portal.example.com/reset-password");
    const token = url.searchParams.get("token")!;
    const [stored] = await h.orm.em
      .getConnection()
      .execute<{ token_hash: string }[]>("select token_hash from password_reset_tokens where user_id = ?", [id]);
    expect(stored!.token_hash).not.toContain(token);
    expect(Number(event!.expiresAt!.seconds) * 1000).toBeGreaterThan(Date.now());

    expect(await failure(h.accounts.resetPassword({ token, newPassword: "password123", client }))).toMatchObject({
      status: 422,
    });
    await h.accounts.resetPassword({ token, newPassword: "cobalt-meadow-river-7", client });
    expect(
      await failure(h.accounts.resetPassword({ token, newPassword: "cobalt-meadow-river-8", client })),
    ).toMatchObject({ status: 422, problemCode: "invalid_reset_token" });
    expect(await failure(h.accounts.refresh({ refreshToken: s.refreshToken, client }))).toMatchObject({ status: 401 });
    expect(await failure(h.accounts.login({ email, password: PASSWORD, client }))).toMatchObject({ status: 401 });
    await signIn(email, "cobalt-meadow-river-7");
    await auditEvents.waitFor(
      AuditEventSchema,
      (e) => e.targetId === id && e.action === "auth.password_reset.completed",
    );
    await auditEvents.waitFor(
      AuditEventSchema,
      (e) => e.targetId === id && e.action === "auth.password_reset.requested",
    );
  });

  it("answers the same for unknown addresses, with the cooldown as retry_after while it runs", async () => {
    const { id, email } = await registered();
    const unknown = newEmail();
    expect((await h.accounts.forgotPassword({ email: unknown, client })).retryAfterSeconds).toBe(0);
    expect((await h.accounts.forgotPassword({ email, client })).retryAfterSeconds).toBe(0);
    const again = await h.accounts.forgotPassword({ email, client });
    expect(again.retryAfterSeconds).toBeGreaterThan(295);
    expect(again.retryAfterSeconds).toBeLessThanOrEqual(300);
    expect((await h.accounts.forgotPassword({ email: unknown, client })).retryAfterSeconds).toBeGreaterThan(295);
    await domainEvents.waitFor(PasswordResetRequestedSchema, (e) => e.userId === id);
    await new Promise((r) => setTimeout(r, 1000));
    expect(domainEvents.seen.filter((r) => r.key === id)).toHaveLength(1); // the cooldown held back the second e-mail
  });

  it("refuses an expired token", async () => {
    const admin = await superAdmin();
    const { id } = await registered();
    await h.admin.issuePasswordReset({ userId: id }, await h.as(admin));
    const [event] = await domainEvents.waitFor(
      PasswordResetRequestedSchema,
      (e) => e.userId === id && e.requestedBy === "admin",
    );
    await h.orm.em
      .getConnection()
      .execute("update password_reset_tokens set expires_at = now() - interval '1 second' where user_id = ?", [id]);
    const token = new URL(event!.resetUrl).searchParams.get("token")!;
    expect(
      await failure(h.accounts.resetPassword({ token, newPassword: "cobalt-meadow-river-7", client })),
    ).toMatchObject({ status: 422 });
    expect(
      await failure(h.accounts.resetPassword({ token: "short", newPassword: "cobalt-meadow-river-7", client })),
    ).toMatchObject({ status: 422 });
  });
});

describe("second factor", () => {
  const codeAt = (secret: string, offsetSeconds = 0) =>
    generateSync({ secret, epoch: Math.floor(Date.now() / 1000) + offsetSeconds });

  async function enrolled(): Promise<{ id: string; email: string; secret: string; recovery: string[] }> {
    const { id, email } = await registered();
    const as = await h.as(id);
    const setup = await h.accounts.beginTotpEnrolment({}, as);
    expect(setup.otpauthUri).toContain(`secret=${setup.secret}`);
    const [row] = await h.orm.em
      .getConnection()
      .execute<{ secret_sealed: string }[]>("select secret_sealed from totp_factors where user_id = ?", [id]);
    expect(row!.secret_sealed).not.toContain(setup.secret);
    expect(await failure(h.accounts.confirmTotpEnrolment({ code: "000000" }, as))).toMatchObject({ status: 422 });
    const { recoveryCodes } = await h.accounts.confirmTotpEnrolment({ code: codeAt(setup.secret, -30) }, as);
    expect(recoveryCodes).toHaveLength(10);
    return { id, email, secret: setup.secret, recovery: recoveryCodes };
  }

  it("a password sign-in then answers a pending token that grants nothing; the code completes it once", async () => {
    const { id, email, secret } = await enrolled();
    expect((await h.accounts.getMe({}, await h.as(id))).user!.mfaEnabled).toBe(true);
    const login = await h.accounts.login({ email, password: PASSWORD, client });
    if (login.outcome.case !== "challenge") throw new Error("expected a challenge");
    const { mfaToken } = login.outcome.value;
    expect(await verifyAccessToken(mfaToken, TEST_SECRET)).toBeNull();
    expect(await failure(h.accounts.completeSecondFactor({ mfaToken, code: "123456", client }))).toMatchObject({
      status: 401,
    });
    const code = codeAt(secret);
    const { session } = await h.accounts.completeSecondFactor({ mfaToken, code, client });
    expect((await verifyAccessToken(session!.accessToken, TEST_SECRET))?.userId).toBe(id);
    expect(await failure(h.accounts.completeSecondFactor({ mfaToken, code, client }))).toMatchObject({ status: 401 }); // replay
    expect(await failure(h.accounts.completeSecondFactor({ mfaToken: "x", code: "", client }))).toMatchObject({
      status: 422,
    });
    expect(
      await failure(h.accounts.completeSecondFactor({ mfaToken: "x".repeat(4097), code: "1", client })),
    ).toMatchObject({ status: 422 });
    await auditEvents.waitFor(AuditEventSchema, (e) => e.targetId === id && e.action === "auth.mfa.enrolled");
  });

  it("recovery codes work once each", async () => {
    const { email, recovery } = await enrolled();
    for (const expected of ["session", "refused"]) {
      const login = await h.accounts.login({ email, password: PASSWORD, client });
      if (login.outcome.case !== "challenge") throw new Error("expected a challenge");
      const call = h.accounts.completeSecondFactor({
        mfaToken: login.outcome.value.mfaToken,
        code: recovery[0]!.toUpperCase(),
        client,
      });
      if (expected === "session") expect((await call).session).toBeDefined();
      else expect(await failure(call)).toMatchObject({ status: 401 });
    }
  });

  it("wrong codes count towards the sign-in throttle", async () => {
    const { email } = await enrolled();
    const login = await h.accounts.login({ email, password: PASSWORD, client });
    if (login.outcome.case !== "challenge") throw new Error("expected a challenge");
    for (let i = 0; i < 3; i++)
      await failure(
        h.accounts.completeSecondFactor({ mfaToken: login.outcome.value.mfaToken, code: "000000", client }),
      );
    expect(
      await failure(
        h.accounts.completeSecondFactor({ mfaToken: login.outcome.value.mfaToken, code: "000000", client }),
      ),
    ).toMatchObject({ status: 429 });
  });

  it("the owner removes it with a code; the administrator clears it (audited); both allow enrolling again", async () => {
    const admin = await superAdmin();
    const a = await enrolled();
    expect(await failure(h.accounts.beginTotpEnrolment({}, await h.as(a.id)))).toMatchObject({ status: 409 });
    expect(await failure(h.accounts.removeSecondFactor({ code: "000000" }, await h.as(a.id)))).toMatchObject({
      status: 422,
    });
    await h.accounts.removeSecondFactor({ code: a.recovery[3]! }, await h.as(a.id));
    expect((await h.accounts.login({ email: a.email, password: PASSWORD, client })).outcome.case).toBe("session");

    const b = await enrolled();
    await h.admin.clearSecondFactor({ userId: b.id }, await h.as(admin));
    expect((await h.accounts.login({ email: b.email, password: PASSWORD, client })).outcome.case).toBe("session");
    expect((await h.accounts.beginTotpEnrolment({}, await h.as(b.id))).secret).toBeTruthy();
    await auditEvents.waitFor(AuditEventSchema, (e) => e.targetId === b.id && e.action === "user.mfa_cleared");
    expect(
      await failure(h.admin.clearSecondFactor({ userId: "0190f0e0-0000-7000-8000-000000000001" }, await h.as(admin))),
    ).toMatchObject({ status: 404 });
  });
});

describe("administration of users", () => {
  it("is invisible (404) to everyone but super_admin", async () => {
    const { id } = await registered();
    const as = await h.as(id);
    for (const call of [
      h.admin.listUsers({}, as),
      h.admin.getUser({ userId: id }, as),
      h.admin.deactivateUser({ userId: id }, as),
      h.admin.unlockSignIn({ userId: id }, as),
      h.admin.clearSecondFactor({ userId: id }, as),
      h.admin.issuePasswordReset({ userId: id }, as),
    ])
      expect(await failure(call)).toMatchObject({ status: 404 });
    expect(await failure(h.admin.listUsers({}))).toMatchObject({ status: 401 });
  });

  it("lists with filters and numbered pages", async () => {
    const admin = await superAdmin();
    const as = await h.as(admin);
    const tag = `zz${Date.now()}`;
    for (let i = 0; i < 3; i++) await registered(`${tag}.${i}@example.com`);
    const page1 = await h.admin.listUsers({ q: tag, page: { page: 1, pageSize: 2 } }, as);
    expect(page1.page).toMatchObject({ total: 3, page: 1, pageSize: 2 });
    expect(page1.items.map((u) => u.email)).toEqual([`${tag}.0@example.com`, `${tag}.1@example.com`]);
    expect((await h.admin.listUsers({ q: tag, page: { page: 2, pageSize: 2 } }, as)).items).toHaveLength(1);
    expect(
      (await h.admin.listUsers({ isSuperuser: true, page: { pageSize: 200 } }, as)).items.every((u) => u.isSuperuser),
    ).toBe(true);
    expect(await failure(h.admin.listUsers({ page: { pageSize: 201 } }, as))).toMatchObject({ status: 422 });
    const item = page1.items[0]!;
    expect(item.updatedAt).toBeDefined();
    expect(item.mfaEnabled).toBe(false);
  });

  it("deactivation ends every session and refuses sign-in; activation restores it; unknown ids are 404", async () => {
    const admin = await superAdmin();
    const as = await h.as(admin);
    const { id, email } = await registered();
    const s = await signIn(email);
    const { user } = await h.admin.deactivateUser({ userId: id }, as);
    expect(user!.isActive).toBe(false);
    expect(await failure(h.accounts.refresh({ refreshToken: s.refreshToken, client }))).toMatchObject({ status: 401 });
    expect(await failure(h.accounts.login({ email, password: PASSWORD, client }))).toMatchObject({ status: 401 });
    expect((await h.admin.activateUser({ userId: id }, as)).user!.isActive).toBe(true);
    await signIn(email);
    await auditEvents.waitFor(AuditEventSchema, (e) => e.targetId === id && e.action === "user.deactivated");
    for (const userId of ["0190f0e0-0000-7000-8000-000000000001", "not-a-uuid"]) {
      expect(await failure(h.admin.getUser({ userId }, as))).toMatchObject({ status: 404 });
      expect(await failure(h.admin.issuePasswordReset({ userId }, as))).toMatchObject({ status: 404 });
      expect(await failure(h.admin.unlockSignIn({ userId }, as))).toMatchObject({ status: 404 });
    }
  });
});

describe("secrets", () => {
  it("no audit event carries a password, token or code", async () => {
    const { email } = await registered();
    const s = await signIn(email);
    await h.accounts.refresh({ refreshToken: s.refreshToken, client });
    await new Promise((r) => setTimeout(r, 1500));
    const everything = Buffer.concat(auditEvents.seen.map((r) => r.value)).toString("latin1");
    for (const secret of [PASSWORD, "cobalt-meadow-river-7", s.refreshToken, s.accessToken])
      expect(everything).not.toContain(secret);
  });
});

describe("daily sweep", () => {
  it("deletes refresh and reset tokens only once they are past expiry by the retention grace", async () => {
    const { id, email } = await registered();
    await signIn(email);
    await signIn(email);
    await h.accounts.forgotPassword({ email, client });
    const conn = h.orm.em.getConnection();
    await conn.execute(
      "update refresh_tokens set expires_at = now() - interval '2 days' where id = (select id from refresh_tokens where user_id = ? limit 1)",
      [id],
    );
    await conn.execute("update password_reset_tokens set expires_at = now() - interval '12 hours' where user_id = ?", [
      id,
    ]);
    await sweepSessionState(h.orm, {
      ...h.settings,
      REFRESH_TOKEN_RETENTION_GRACE_DAYS: 1,
      PASSWORD_RESET_TOKEN_RETENTION_GRACE_DAYS: 1,
    });
    const count = async (table: string) =>
      (await conn.execute<{ n: number }[]>(`select count(*)::int as n from ${table} where user_id = ?`, [id]))[0]!.n;
    expect(await count("refresh_tokens")).toBe(1);
    expect(await count("password_reset_tokens")).toBe(1); // expired, but within the grace
  });
});
