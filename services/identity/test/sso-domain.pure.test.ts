// The pure rules of SSO sign-in: redirect safety, state and flow cookie, discovery checks, scopes, the group
// role map and grading, claims to profile, the account decision, and the start-up refusals of the settings.
import { describe, expect, it } from "@jest/globals";
import { loadConfig } from "@sca/config";
import { TEST_SECRET } from "@sca/testkit";
import { gradeTeams, parseDefaultMemberRole, parseGroupRoleMap } from "../src/domain/group-role-map.ts";
import { profileFromClaims } from "../src/domain/oauth-profile.ts";
import { readSignIn, startSignIn } from "../src/domain/oauth-state.ts";
import { checkIssuer, discoveryDocumentProblem, oidcScopes } from "../src/domain/oidc-discovery.ts";
import { safeRedirectPath } from "../src/domain/redirect-safety.ts";
import { decideAccount } from "../src/domain/sso-account.ts";
import { providerSettings, ssoKeys } from "../src/domain/sso-settings.ts";

describe("safeRedirectPath", () => {
  it.each([
    ["/projects", "/projects"],
    ["/projects/1?tab=licenses#top", "/projects/1?tab=licenses#top"],
    ["/a/../b", "/b"],
  ])("keeps the same-site path %s", (raw, kept) => expect(safeRedirectPath(raw)).toBe(kept));

  it.each([
    "",
    "projects",
    "https://evil.example/",
    "//evil.example/x",
    "/\\evil.example",
    "/\t/evil.example",
    "\\\\evil.example",
    "javascript:alert(1)",
    "/x\nLocation: https://evil.example",
    `/${"a".repeat(2048)}`,
  ])("refuses %j", (raw) => expect(safeRedirectPath(raw)).toBeNull());

  it("treats an absent value as none", () => expect(safeRedirectPath(undefined)).toBeNull());
});

describe("state and flow cookie", () => {
  const start = () =>
    startSignIn({ provider: "oidc", redirectAfter: "/projects", ttlSeconds: 300, secretKey: TEST_SECRET });

  it("round-trips provider, redirect, verifier and nonce", async () => {
    const s = await start();
    const read = await readSignIn({
      provider: "oidc",
      state: s.state,
      flowCookie: s.flowCookie,
      secretKey: TEST_SECRET,
    });
    expect(read).toEqual({
      ok: true,
      flow: { redirectAfter: "/projects", codeVerifier: s.codeVerifier, nonce: s.nonce },
    });
  });

  it("keeps the verifier and nonce out of the state the provider sees", async () => {
    const s = await start();
    const payload = Buffer.from(s.state.split(".")[1]!, "base64url").toString();
    expect(payload).not.toContain(s.codeVerifier);
    expect(payload).not.toContain(s.nonce);
    expect(s.flowCookie).not.toContain(s.codeVerifier);
  });

  it("refuses a tampered state", async () => {
    const s = await start();
    const [h, p, sig] = s.state.split(".");
    const forged = JSON.stringify({ ...JSON.parse(Buffer.from(p!, "base64url").toString()), rda: "/admin" });
    const state = `${h}.${Buffer.from(forged).toString("base64url")}.${sig}`;
    expect(await readSignIn({ provider: "oidc", state, flowCookie: s.flowCookie, secretKey: TEST_SECRET })).toEqual({
      ok: false,
      reason: "invalid_state",
    });
  });

  it("refuses a state signed under another key", async () => {
    const s = await start();
    expect(
      await readSignIn({ provider: "oidc", state: s.state, flowCookie: s.flowCookie, secretKey: `${TEST_SECRET}x` }),
    ).toEqual({ ok: false, reason: "invalid_state" });
  });

  it("refuses an expired state", async () => {
    const s = await startSignIn({
      provider: "oidc",
      redirectAfter: null,
      ttlSeconds: 300,
      secretKey: TEST_SECRET,
      now: new Date(Date.now() - 301_000),
    });
    expect(
      await readSignIn({ provider: "oidc", state: s.state, flowCookie: s.flowCookie, secretKey: TEST_SECRET }),
    ).toEqual({ ok: false, reason: "state_expired" });
  });

  it("refuses a state used for another provider", async () => {
    const s = await start();
    expect(
      await readSignIn({ provider: "idp_a", state: s.state, flowCookie: s.flowCookie, secretKey: TEST_SECRET }),
    ).toEqual({ ok: false, reason: "invalid_state" });
  });

  it("refuses a missing flow cookie or one from another attempt (login CSRF)", async () => {
    const s = await start();
    const other = await start();
    expect(await readSignIn({ provider: "oidc", state: s.state, flowCookie: "", secretKey: TEST_SECRET })).toEqual({
      ok: false,
      reason: "invalid_state",
    });
    expect(
      await readSignIn({ provider: "oidc", state: s.state, flowCookie: other.flowCookie, secretKey: TEST_SECRET }),
    ).toEqual({ ok: false, reason: "invalid_state" });
  });
});

describe("OIDC issuer and discovery document", () => {
  const issuer = "https://login.example.com/realms/main";
  const doc = {
    issuer,
    authorization_endpoint: "https://login.example.com/realms/main/auth",
    token_endpoint: "https://login.example.com/realms/main/token",
    userinfo_endpoint: "https://login.example.com/realms/main/userinfo",
    jwks_uri: "https://login.example.com/realms/main/certs",
    service_documentation: "https://docs.elsewhere.example/",
  };

  it("accepts https issuers only", () => {
    expect(checkIssuer(issuer)).toEqual({ ok: true, issuer });
    expect(checkIssuer("http://login.example.com")).toEqual({ ok: false, message: "must use https" });
    expect(checkIssuer("login.example.com").ok).toBe(false);
    expect(checkIssuer("https://login.example.com/?x=1").ok).toBe(false);
  });

  it("accepts a document whose endpoints are all on the issuer's host", () => {
    expect(discoveryDocumentProblem(doc, issuer)).toBeNull();
  });

  it("refuses an endpoint on another host, another port, or without https", () => {
    expect(discoveryDocumentProblem({ ...doc, token_endpoint: "https://evil.example/token" }, issuer)).toMatch(
      /token_endpoint is on evil.example/,
    );
    expect(
      discoveryDocumentProblem({ ...doc, end_session_endpoint: "https://login.example.com:8443/logout" }, issuer),
    ).toMatch(/end_session_endpoint/);
    expect(discoveryDocumentProblem({ ...doc, jwks_uri: "http://login.example.com/certs" }, issuer)).toMatch(
      /jwks_uri does not use https/,
    );
    expect(
      discoveryDocumentProblem(
        { ...doc, mtls_endpoint_aliases: { token_endpoint: "https://mtls.example.com/t" } },
        issuer,
      ),
    ).toMatch(/mtls_endpoint_aliases.token_endpoint/);
  });

  it("refuses another issuer or a document without the endpoints sign-in needs", () => {
    expect(discoveryDocumentProblem({ ...doc, issuer: "https://login.example.com" }, issuer)).toMatch(/differs/);
    expect(discoveryDocumentProblem({ ...doc, jwks_uri: undefined }, issuer)).toMatch(/jwks_uri is missing/);
  });

  it("re-adds openid to the scopes", () => {
    expect(oidcScopes("email profile")).toEqual(["openid", "email", "profile"]);
    expect(oidcScopes("email,openid  groups email")).toEqual(["openid", "email", "groups"]);
    expect(oidcScopes("")).toEqual(["openid"]);
  });
});

describe("group role map and grades", () => {
  it("parses group:grade pairs, bare groups, and colons inside group names", () => {
    expect([...parseGroupRoleMap("payments:developer, ops:team_admin,readers, cn=a:b:viewer")]).toEqual([
      ["payments", "developer"],
      ["ops", "team_admin"],
      ["readers", null],
      ["cn=a:b", "viewer"],
    ]);
    expect(parseGroupRoleMap("").size).toBe(0);
  });

  it("refuses super_admin, unknown grades and contradictions", () => {
    expect(() => parseGroupRoleMap("admins:super_admin")).toThrow(/super_admin cannot be granted/);
    expect(() => parseGroupRoleMap("x:owner")).toThrow(/grade must be one of/);
    expect(() => parseGroupRoleMap(":viewer")).toThrow(/names no group/);
    expect(() => parseGroupRoleMap("x:viewer,x:developer")).toThrow(/twice/);
  });

  it("resolves DEFAULT_MEMBER_ROLE: empty none, unknown viewer, super_admin refused", () => {
    expect(parseDefaultMemberRole("")).toBeNull();
    expect(parseDefaultMemberRole("developer")).toBe("developer");
    expect(parseDefaultMemberRole("boss")).toBe("viewer");
    expect(() => parseDefaultMemberRole("super_admin")).toThrow(/super_admin/);
  });

  it("grants matched teams their grade and lowers the unmatched ones", () => {
    const map = parseGroupRoleMap("payments:developer,ops:team_admin,readers");
    expect(gradeTeams(map, "developer", ["ops", "readers", "unrelated"])).toEqual({
      grant: new Map([
        ["ops", "team_admin"],
        ["readers", "developer"],
      ]),
      lower: ["payments"],
    });
    expect(gradeTeams(map, null, ["readers"]).grant.get("readers")).toBe("viewer");
    expect(gradeTeams(new Map(), "developer", ["ops"])).toEqual({ grant: new Map(), lower: [] });
  });
});

describe("profileFromClaims", () => {
  it("reads subject, lower-cased e-mail, verification, name and groups", () => {
    expect(
      profileFromClaims(
        { sub: "u1", email: "Ada@Example.COM", email_verified: true, name: "Ada", groups: ["a", 3, "b"] },
        "groups",
      ),
    ).toEqual({ subject: "u1", email: "ada@example.com", emailVerified: true, name: "Ada", groups: ["a", "b"] });
  });

  it("accepts a numeric id, a space-separated groups string, and counts a missing email_verified as unverified", () => {
    expect(profileFromClaims({ id: 42, email: "a@b.c", roles: "x y" }, "roles")).toEqual({
      subject: "42",
      email: "a@b.c",
      emailVerified: false,
      name: null,
      groups: ["x", "y"],
    });
  });

  it("refuses claims without a subject", () => {
    expect(profileFromClaims({ email: "a@b.c" }, "groups")).toBeNull();
    expect(profileFromClaims({ sub: "" }, "groups")).toBeNull();
  });
});

describe("decideAccount", () => {
  const profile = { subject: "s", email: "a@b.c", emailVerified: true, name: null, groups: [] };
  const active = { userId: "u1", isActive: true, isServiceAccount: false };

  it("signs in the linked account first", () => {
    expect(
      decideAccount({ profile, linked: active, sameEmail: { ...active, userId: "u2" }, autoRegister: true }),
    ).toEqual({ kind: "sign_in", userId: "u1" });
  });

  it("links the account with the same verified e-mail", () => {
    expect(decideAccount({ profile, linked: null, sameEmail: active, autoRegister: false })).toEqual({
      kind: "link",
      userId: "u1",
    });
  });

  it("never links or registers on an unverified e-mail", () => {
    const unverified = { ...profile, emailVerified: false };
    expect(decideAccount({ profile: unverified, linked: null, sameEmail: active, autoRegister: true })).toEqual({
      kind: "refuse",
      reason: "email_not_verified",
    });
  });

  it("registers only when AUTH_AUTO_REGISTER is on", () => {
    expect(decideAccount({ profile, linked: null, sameEmail: null, autoRegister: true })).toEqual({
      kind: "register",
      email: "a@b.c",
    });
    expect(decideAccount({ profile, linked: null, sameEmail: null, autoRegister: false })).toEqual({
      kind: "refuse",
      reason: "account_not_registered",
    });
  });

  it("refuses deactivated accounts and service accounts", () => {
    expect(
      decideAccount({ profile, linked: { ...active, isActive: false }, sameEmail: null, autoRegister: true }),
    ).toEqual({ kind: "refuse", reason: "account_inactive" });
    expect(
      decideAccount({ profile, linked: null, sameEmail: { ...active, isServiceAccount: true }, autoRegister: true }),
    ).toEqual({ kind: "refuse", reason: "account_inactive" });
  });
});

describe("SSO settings", () => {
  it("lists every provider, configured only with client id and secret (and the issuer for oidc)", () => {
    const config = loadConfig(ssoKeys, {
      OAUTH_IDP_A_CLIENT_ID: "a",
      OAUTH_IDP_A_CLIENT_SECRET: "s",
      OAUTH_IDP_A_AUTHORIZE_URL: "https://a.example/authorize",
      OAUTH_IDP_A_TOKEN_URL: "https://a.example/token",
      OAUTH_IDP_A_USERINFO_URL: "https://a.example/user",
      OAUTH_IDP_B_CLIENT_ID: "b",
      OIDC_CLIENT_ID: "o",
      OIDC_CLIENT_SECRET: "s",
    });
    expect(providerSettings(config).map((p) => [p.name, p.configured])).toEqual([
      ["idp_a", true],
      ["idp_b", false],
      ["oidc", false],
    ]);
  });

  it("refuses at start-up: an http issuer, super_admin grades, a configured hosted provider without endpoints", () => {
    expect(() => loadConfig(ssoKeys, { OIDC_ISSUER: "http://login.example.com" })).toThrow(
      "configuration error: OIDC_ISSUER must use https",
    );
    expect(() => loadConfig(ssoKeys, { OIDC_GROUP_ROLE_MAP: "admins:super_admin" })).toThrow(/OIDC_GROUP_ROLE_MAP/);
    expect(() => loadConfig(ssoKeys, { DEFAULT_MEMBER_ROLE: "super_admin" })).toThrow(/DEFAULT_MEMBER_ROLE/);
    expect(() => loadConfig(ssoKeys, { OAUTH_IDP_B_CLIENT_ID: "b", OAUTH_IDP_B_CLIENT_SECRET: "s" })).toThrow(
      "configuration error: OAUTH_IDP_B_AUTHORIZE_URL is required when OAUTH_IDP_B_CLIENT_ID and OAUTH_IDP_B_CLIENT_SECRET are set",
    );
  });

  it("derives the callback base from DOMAIN unless given", () => {
    expect(loadConfig(ssoKeys, { DOMAIN: "portal.example.com" }).OAUTH_CALLBACK_BASE_URL).toBe(
      "https://portal.example.com/api",
    );
    expect(loadConfig(ssoKeys, { OAUTH_CALLBACK_BASE_URL: "https://sca.example/api/" }).OAUTH_CALLBACK_BASE_URL).toBe(
      "https://sca.example/api",
    );
    expect(loadConfig(ssoKeys, {}).OIDC_SCOPES).toEqual(["openid", "email", "profile"]);
  });
});
