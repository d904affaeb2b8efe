// SSO sign-in end to end against a real OpenID provider over https: authorize, the provider's login and
// consent, the callback, the account (created, linked, graded), the session, and the linked identities.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { fromBinary } from "@bufbuild/protobuf";
import type { ConnectError } from "@connectrpc/connect";
import { auditEventsTopic } from "@sca/kafka";
import { AuditEventSchema } from "@sca/proto/sca/events/v1/audit_pb.ts";
import { fromConnectError } from "@sca/problem";
import { followToCallback, startTestProvider, TEST_SECRET } from "@sca/testkit";
import { startSignIn } from "../src/domain/oauth-state.ts";
import { providerSettings } from "../src/domain/sso-settings.ts";
import { createProviderClients } from "../src/clients/sso-providers.ts";
import { CALLBACK_BASE, startSso, type SsoHarness } from "./support/sso-harness.ts";

let h: SsoHarness;

beforeAll(async () => {
  h = await startSso({ OIDC_GROUP_ROLE_MAP: "payments:developer,ops:team_admin", AUTH_AUTO_REGISTER: "true" });
  const em = h.orm.em.fork();
  for (const slug of ["payments", "ops"]) {
    await em.execute(
      "insert into groups (id, organization_id, name, slug) select gen_random_uuid(), id, ?, ? from organizations where slug = 'default'",
      [slug, slug],
    );
  }
});

afterAll(async () => {
  await h?.close();
});

/** Plays one sign-in as `subject` (or a refusal) and answers what identity told the gateway. */
async function signIn(as: { subject: string } | "deny", redirectAfter = "") {
  h.provider.nextSignIn = as;
  const begun = await h.sso.beginSignIn({ provider: "oidc", redirectAfter });
  const callback = await followToCallback(
    h.provider.fetch,
    begun.authorizationUrl,
    `${CALLBACK_BASE}/auth/oauth/oidc/callback`,
  );
  const q = callback.searchParams;
  return h.sso.completeSignIn({
    provider: "oidc",
    code: q.get("code") ?? "",
    state: q.get("state") ?? "",
    error: q.get("error") ?? "",
    iss: q.get("iss") ?? "",
    flowCookie: begun.flowCookie!.value,
    client: { ip: "198.51.100.7", userAgent: "jest" },
  });
}

async function problemOf(call: Promise<unknown>) {
  try {
    await call;
  } catch (err) {
    return fromConnectError(err as ConnectError).init;
  }
  throw new Error("the call succeeded");
}

async function rolesOf(userId: string): Promise<Record<string, string>> {
  const rows = await h.orm.em
    .fork()
    .execute<{ slug: string; role: string }[]>(
      "select g.slug, m.role from memberships m join groups g on g.id = m.group_id where m.user_id = ?",
      [userId],
    );
  return Object.fromEntries(rows.map((r) => [r.slug, r.role]));
}

describe("provider list", () => {
  it("flags only the providers with client id and secret (and issuer)", async () => {
    const { providers } = await h.sso.listProviders({});
    expect(providers.map((p) => [p.name, p.configured])).toEqual([
      ["idp_a", false],
      ["idp_b", false],
      ["oidc", true],
    ]);
  });
});

describe("authorize", () => {
  it("sends the browser to the provider with state, nonce and an S256 PKCE challenge, and sets the flow cookie", async () => {
    const begun = await h.sso.beginSignIn({ provider: "oidc", redirectAfter: "/projects" });
    const url = new URL(begun.authorizationUrl);
    expect(url.origin).toBe(h.provider.issuer);
    expect(url.searchParams.get("redirect_uri")).toBe(`${CALLBACK_BASE}/auth/oauth/oidc/callback`);
    expect(url.searchParams.get("scope")).toBe("openid email profile groups");
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(url.searchParams.get("nonce")).toBeTruthy();
    expect(begun.flowCookie).toMatchObject({ name: "sca_oauth_flow", path: "/api/auth/oauth", maxAgeSeconds: 300 });
  });

  it("answers 503 oauth_provider_disabled for an unconfigured provider and 404 for an unknown one", async () => {
    expect(await problemOf(h.sso.beginSignIn({ provider: "idp_a" }))).toMatchObject({
      status: 503,
      code: "oauth_provider_disabled",
      extensions: { oauth_provider_disabled: true },
    });
    expect(await problemOf(h.sso.beginSignIn({ provider: "github" }))).toMatchObject({ status: 404 });
  });
});

describe("sign-in", () => {
  let aliceId = "";

  it("registers an unknown person, links the identity, grades the teams and opens a real session", async () => {
    h.provider.people.set("alice-sub", {
      email: "Alice@Example.com",
      email_verified: true,
      name: "Alice",
      groups: ["payments", "unmapped"],
    });
    const done = await signIn({ subject: "alice-sub" }, "/projects/7?tab=licenses");
    expect(done.failureReason).toBe("");
    expect(done.redirectTo).toBe("/projects/7?tab=licenses");
    aliceId = done.session!.userId;
    const [user] = await h.orm.em
      .fork()
      .execute<{ email: string; full_name: string; password_hash: string | null; last_login_at: Date | null }[]>(
        "select email, full_name, password_hash, last_login_at from users where id = ?",
        [aliceId],
      );
    expect(user).toMatchObject({ email: "alice@example.com", full_name: "Alice", password_hash: null });
    expect(user!.last_login_at).not.toBeNull();
    expect(await rolesOf(aliceId)).toEqual({ payments: "developer" });
    // The refresh cookie's token is a session of the accounts part: it rotates.
    const refreshed = await h.accounts.refresh({
      refreshToken: done.session!.refreshToken,
      client: { ip: "198.51.100.7", userAgent: "jest" },
    });
    expect(refreshed.session!.accessToken).toBeTruthy();
  });

  it("signs the same person in again through the link and re-applies the grades", async () => {
    h.provider.people.set("alice-sub", {
      email: "alice@example.com",
      email_verified: true,
      name: "Alice",
      groups: ["ops"],
    });
    const done = await signIn({ subject: "alice-sub" });
    expect(done.redirectTo).toBe("/dashboard");
    expect(done.session!.userId).toBe(aliceId);
    expect(await rolesOf(aliceId)).toEqual({ payments: "viewer", ops: "team_admin" });
  });

  it("links an existing password account with the same verified e-mail", async () => {
    const [bob] = await h.orm.em
      .fork()
      .execute<{ id: string }[]>(
        "insert into users (id, email, password_hash) values (gen_random_uuid(), 'bob@example.com', 'hash') returning id",
      );
    h.provider.people.set("bob-sub", { email: "bob@example.com", email_verified: true, name: "Bob", groups: [] });
    const done = await signIn({ subject: "bob-sub" });
    expect(done.session!.userId).toBe(bob!.id);
  });

  it("refuses to link or register on an unverified e-mail", async () => {
    h.provider.people.set("mallory-sub", {
      email: "bob@example.com",
      email_verified: false,
      name: "Mallory",
      groups: [],
    });
    const done = await signIn({ subject: "mallory-sub" });
    expect(done.session).toBeUndefined();
    expect(done.redirectTo).toBe("https://portal.test/login?error=email_not_verified");
  });

  it("turns the provider's denial into oauth_denied", async () => {
    const done = await signIn("deny");
    expect(done.failureReason).toBe("oauth_denied");
    expect(done.redirectTo).toBe("https://portal.test/login?error=oauth_denied");
  });

  it("refuses a tampered, an expired, or a foreign state before any exchange", async () => {
    const begun = await h.sso.beginSignIn({ provider: "oidc" });
    const state = new URL(begun.authorizationUrl).searchParams.get("state")!;
    const complete = (s: string, cookie: string) =>
      h.sso.completeSignIn({ provider: "oidc", code: "any-code", state: s, flowCookie: cookie });
    expect((await complete(`${state.slice(0, -2)}xx`, begun.flowCookie!.value)).failureReason).toBe("invalid_state");
    const old = await startSignIn({
      provider: "oidc",
      redirectAfter: null,
      ttlSeconds: 300,
      secretKey: TEST_SECRET,
      now: new Date(Date.now() - 600_000),
    });
    expect((await complete(old.state, old.flowCookie)).redirectTo).toBe(
      "https://portal.test/login?error=state_expired",
    );
    expect((await complete(state, "")).failureReason).toBe("invalid_state");
  });

  it("lists the caller's identities and refuses to unlink the only sign-in method", async () => {
    const { items } = await h.sso.listMyIdentities({}, await h.as(aliceId));
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ provider: "oidc", subject: "alice-sub", email: "alice@example.com" });
    expect(items[0]!.lastUsedAt).toBeDefined();
    const problem = await problemOf(h.sso.unlinkMyIdentity({ identityId: items[0]!.id }, await h.as(aliceId)));
    expect(problem).toMatchObject({ status: 409, typeUri: "urn:service:problem:last-oauth-link" });
  });

  it("unlinks an identity of an account with a password, and hides other people's identities", async () => {
    const [bob] = await h.orm.em
      .fork()
      .execute<{ id: string }[]>("select id from users where email = 'bob@example.com'");
    const { items } = await h.sso.listMyIdentities({}, await h.as(bob!.id));
    const [alicesIdentity] = (await h.sso.listMyIdentities({}, await h.as(aliceId))).items;
    expect(
      await problemOf(h.sso.unlinkMyIdentity({ identityId: alicesIdentity!.id }, await h.as(bob!.id))),
    ).toMatchObject({ status: 404 });
    await h.sso.unlinkMyIdentity({ identityId: items[0]!.id }, await h.as(bob!.id));
    expect((await h.sso.listMyIdentities({}, await h.as(bob!.id))).items).toEqual([]);
  });

  it("writes sign-in, registration and link audit events to the outbox", async () => {
    const rows = await h.orm.em
      .fork()
      .execute<{ payload: Buffer }[]>("select payload from outbox where topic = ? order by id", [
        auditEventsTopic.topic,
      ]);
    const events = rows.map((r) => fromBinary(AuditEventSchema, r.payload));
    const seen = new Set(events.map((e) => `${e.action}:${e.outcome}`));
    for (const expected of [
      "auth.registered:success",
      "oauth_identity.linked:success",
      "auth.login.succeeded:success",
      "auth.login.failed:failure",
      "oauth_identity.unlinked:success",
    ])
      expect(seen).toContain(expected);
    const denied = events.find((e) => e.details.reason === "oauth_denied");
    expect(denied).toMatchObject({ source: "identity", details: { method: "oauth", provider: "oidc" } });
    expect(JSON.stringify(events.map((e) => e.details))).not.toMatch(/refresh|code_verifier|secret/i);
  });
});

describe("discovery rules", () => {
  it("refuses a provider whose discovery document names an endpoint on another host", async () => {
    const rogue = await startTestProvider({
      redirectUris: [`${CALLBACK_BASE}/auth/oauth/oidc/callback`],
      discoveryExtras: { revocation_endpoint: "https://elsewhere.localhost/revoke" },
    });
    try {
      const settings = providerSettings({ ...h.ssoConfig, OIDC_ISSUER: rogue.issuer }).find((p) => p.name === "oidc")!;
      const clients = createProviderClients({ timeoutSeconds: 5, fetch: rogue.fetch });
      await expect(clients.configuration(settings)).rejects.toThrow(/revocation_endpoint is on elsewhere.localhost/);
    } finally {
      await rogue.close();
    }
  });
});
