// OAuth / OIDC sign-in through the gateway, end to end: a real identity service (SSO, accounts and access over a
// schema of its own, started by the test kit) signing people in at a real OpenID provider over https (the test
// kit's), and real
// gateways in front of it. The test plays the browser with manual redirects; the ingress's job (the provider
// sends the browser to https://portal.test/api/..., which reaches the gateway) is done by `viaIngress`.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { randomUUID } from "node:crypto";
import { Writable } from "node:stream";
import { createLogger, type Logger } from "@sca/log";
import {
  closeTogether,
  followToCallback,
  startService,
  startTestProvider,
  uniqueName,
  type TestProvider,
  type TestService,
} from "@sca/testkit";
import { startTestGateway, type TestGateway } from "./harness.ts";

const BROWSER_ORIGIN = "https://portal.test";
const CALLBACK = `${BROWSER_ORIGIN}/api/auth/oauth/oidc/callback`;
const FAILURE = `${BROWSER_ORIGIN}/login`;

let provider: TestProvider;
let orm: TestService["orm"];
let identity: TestService;
const answerNamespace = `${uniqueName("identity_answers")}:`;
const logLines: string[] = [];
const gateways: TestGateway[] = [];
/** Every answer the gateways gave, to look for secrets in. */
const answers: string[] = [];

function logTo(name: string): Logger {
  return createLogger(
    name,
    "INFO",
    new Writable({
      write(chunk: Buffer, _enc, done) {
        logLines.push(chunk.toString("utf8"));
        done();
      },
    }),
  );
}

/** Identity's SSO at the test provider, with its callback at CALLBACK and the failure page at FAILURE. */
async function startIdentity(): Promise<void> {
  provider = await startTestProvider({ redirectUris: [CALLBACK] });
  identity = await startService("identity", {
    env: {
      OIDC_ISSUER: provider.issuer,
      OIDC_CLIENT_ID: provider.clientId,
      OIDC_CLIENT_SECRET: provider.clientSecret,
      OIDC_SCOPES: "email profile",
      OAUTH_CALLBACK_BASE_URL: `${BROWSER_ORIGIN}/api`,
      OAUTH_LOGIN_REDIRECT_DEFAULT: "/dashboard",
      OAUTH_LOGIN_REDIRECT_FAILURE: FAILURE,
      AUTH_AUTO_REGISTER: "true",
      OAUTH_HTTP_TIMEOUT_SECONDS: "5",
    },
    logger: logTo("identity-test"),
    poolMax: 6,
    seams: { apiKeyAnswerNamespace: answerNamespace, providerFetch: provider.fetch },
  });
  ({ orm } = identity);
}

/** A gateway in front of the identity service; `env` on top of the test defaults. */
async function startGatewayWith(
  env: Record<string, string> = {},
): Promise<(path: string, init?: RequestInit) => Promise<Response>> {
  const gateway = await startTestGateway({
    env: { DOMAIN: "portal.test", ...env },
    logger: logTo("gateway-test"),
    identity: { url: identity.url!, answerNamespace },
  });
  gateways.push(gateway);
  return async (path, init = {}) => {
    const res = await fetch(`${gateway.origin}${path}`, { redirect: "manual", ...init });
    answers.push(JSON.stringify([...res.headers]), await res.clone().text());
    return res;
  };
}

type Gateway = Awaited<ReturnType<typeof startGatewayWith>>;

/** Where the provider sent the browser, as the path the gateway sees behind the ingress (with /api). */
function viaIngress(callback: URL): string {
  expect(callback.origin).toBe(BROWSER_ORIGIN);
  return `${callback.pathname}${callback.search}`;
}

function cookieOf(res: Response, name: string): { value: string; attributes: string }[] {
  return res.headers
    .getSetCookie()
    .filter((c) => c.startsWith(`${name}=`))
    .map((c) => {
      const [pair, ...attributes] = c.split(";");
      return { value: pair!.slice(name.length + 1), attributes: attributes.map((a) => a.trim()).join("; ") };
    });
}

interface Started {
  providerUrl: string;
  flowCookie: string;
  authorize: Response;
}

async function authorize(gw: Gateway, redirectAfter?: string): Promise<Started> {
  const query = redirectAfter === undefined ? "" : `?redirect_after=${encodeURIComponent(redirectAfter)}`;
  const res = await gw(`/api/auth/oauth/oidc/authorize${query}`);
  expect(res.status).toBe(302);
  const [flow] = cookieOf(res, "sca_oauth_flow");
  return { providerUrl: res.headers.get("location")!, flowCookie: flow!.value, authorize: res };
}

/** The provider's login and consent as `subject` (or the person declining); answers the callback path. */
async function atProvider(started: Started, as: { subject: string } | "deny"): Promise<string> {
  provider.nextSignIn = as;
  return viaIngress(await followToCallback(provider.fetch, started.providerUrl, CALLBACK));
}

function callback(gw: Gateway, path: string, flowCookie: string): Promise<Response> {
  return gw(path, { headers: { cookie: `sca_oauth_flow=${flowCookie}` } });
}

async function problemOf(res: Response): Promise<Record<string, unknown>> {
  expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  return (await res.json()) as Record<string, unknown>;
}

let gw: Gateway;
/** Never in an answer (but the cookies that carry them) nor in a log line. */
const secrets: string[] = [];
/** Answered by design (the access token of a refresh), never logged. */
const logSecrets: string[] = [];

beforeAll(async () => {
  await startIdentity();
  gw = await startGatewayWith({ OAUTH_AUTHORIZE_RATE_LIMIT: "100/minute" });
  secrets.push(provider.clientSecret);
});

afterAll(async () => {
  for (const g of gateways) await g.close();
  await closeTogether([identity, provider]);
}, 120_000);

describe("provider list", () => {
  it("flags each provider under both prefixes, configured only with client id and secret", async () => {
    for (const prefix of ["/api/auth", "/api/v1/auth"]) {
      const res = await gw(`${prefix}/oauth/providers`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        providers: [
          { name: "idp_a", configured: false },
          { name: "idp_b", configured: false },
          { name: "oidc", configured: true },
        ],
      });
    }
  });
});

describe("authorize", () => {
  it("sends the browser to the provider with a signed state and sets the flow cookie for the callback path", async () => {
    const { providerUrl, authorize: res } = await authorize(gw, "/projects");
    const url = new URL(providerUrl);
    expect(url.origin).toBe(provider.issuer);
    expect(url.searchParams.get("redirect_uri")).toBe(CALLBACK);
    expect(url.searchParams.get("state")).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    const [flow] = cookieOf(res, "sca_oauth_flow");
    expect(flow!.attributes).toMatch(
      /^Max-Age=300; Path=\/api\/auth\/oauth; Expires=.+; HttpOnly; Secure; SameSite=Lax$/,
    );
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(await res.text()).toBe("");
  });

  it("answers 503 with the oauth_provider_disabled flag for an unconfigured provider", async () => {
    const res = await gw("/api/v1/auth/oauth/idp_a/authorize");
    expect(res.status).toBe(503);
    expect(await problemOf(res)).toMatchObject({
      status: 503,
      code: "oauth_provider_disabled",
      oauth_provider_disabled: true,
      instance: "/v1/auth/oauth/idp_a/authorize",
    });
    expect(res.headers.getSetCookie()).toEqual([]);
  });

  it("answers 404 for an unknown provider, on authorize and on the callback", async () => {
    expect(await problemOf(await gw("/api/auth/oauth/github/authorize"))).toMatchObject({ status: 404 });
    expect(await problemOf(await gw("/api/auth/oauth/github/callback?code=x&state=y"))).toMatchObject({ status: 404 });
  });

  it("limits authorize per client address with the gateway's Redis limiter", async () => {
    const limited = await startGatewayWith({ OAUTH_AUTHORIZE_RATE_LIMIT: "2/minute" });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await limited("/api/auth/oauth/oidc/authorize")).status);
    expect(statuses).toEqual([302, 302, 429]);
    const res = await limited("/api/auth/oauth/idp_a/authorize");
    expect(await problemOf(res)).toMatchObject({ status: 429, code: "rate_limited" });
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});

describe("sign-in through the browser", () => {
  let refreshToken = "";
  let accessToken = "";

  it("lands on redirect_after with the refresh cookie set and the flow cookie cleared", async () => {
    provider.people.set("ada-sub", { email: "ada@example.com", email_verified: true, name: "Ada", groups: [] });
    const started = await authorize(gw, "/projects/7?tab=licenses");
    const path = await atProvider(started, { subject: "ada-sub" });
    secrets.push(new URL(path, BROWSER_ORIGIN).searchParams.get("code")!, started.flowCookie);

    const res = await callback(gw, path, started.flowCookie);
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/projects/7?tab=licenses");
    expect(res.headers.get("cache-control")).toBe("no-store");
    const refresh = cookieOf(res, "refresh_token");
    expect(refresh.map((c) => c.attributes.match(/Path=[^;]+/)![0])).toEqual(["Path=/api/v1/auth", "Path=/api/auth"]);
    for (const c of refresh) expect(c.attributes).toMatch(/HttpOnly/);
    refreshToken = refresh[0]!.value;
    secrets.push(refreshToken);
    expect(cookieOf(res, "sca_oauth_flow")).toEqual([
      { value: "", attributes: expect.stringMatching(/Path=\/api\/auth\/oauth; Expires=Thu, 01 Jan 1970/) },
    ]);
    expect(await res.text()).toBe("");
  });

  it("issued a real session: the refresh cookie works at POST /auth/refresh", async () => {
    const res = await gw("/api/auth/refresh", { method: "POST", headers: { cookie: `refresh_token=${refreshToken}` } });
    expect(res.status).toBe(200);
    accessToken = ((await res.json()) as { access_token: string }).access_token;
    secrets.push(cookieOf(res, "refresh_token")[0]!.value);
    logSecrets.push(accessToken);
  });

  it("lists the linked identity and refuses to unlink the only sign-in method", async () => {
    const bearer = { authorization: `Bearer ${accessToken}` };
    const list = await gw("/api/v1/users/me/oauth-identities", { headers: bearer });
    expect(list.status).toBe(200);
    const { items } = (await list.json()) as { items: Record<string, unknown>[] };
    expect(items).toEqual([
      {
        id: expect.any(String),
        provider: "oidc",
        subject: "ada-sub",
        email: "ada@example.com",
        created_at: expect.any(String),
        last_used_at: expect.any(String),
      },
    ]);
    const unlink = await gw(`/api/v1/users/me/oauth-identities/${items[0]!.id as string}`, {
      method: "DELETE",
      headers: bearer,
    });
    expect(unlink.status).toBe(409);
    expect(await problemOf(unlink)).toMatchObject({ status: 409, type: "urn:service:problem:last-oauth-link" });
    const foreign = await gw(`/api/v1/users/me/oauth-identities/${randomUUID()}`, {
      method: "DELETE",
      headers: bearer,
    });
    expect(foreign.status).toBe(404);
    expect((await gw("/api/v1/users/me/oauth-identities")).status).toBe(401);
  });

  it("links an account that has a password, which may then unlink it", async () => {
    await orm.em
      .fork()
      .execute("insert into users (id, email, password_hash) values (?, 'grace@example.com', 'x')", [randomUUID()]);
    provider.people.set("grace-sub", { email: "grace@example.com", email_verified: true, name: "Grace", groups: [] });
    const started = await authorize(gw);
    const signedIn = await callback(gw, await atProvider(started, { subject: "grace-sub" }), started.flowCookie);
    expect(signedIn.headers.get("location")).toBe("/dashboard");
    const refreshed = await gw("/api/v1/auth/refresh", {
      method: "POST",
      headers: { cookie: `refresh_token=${cookieOf(signedIn, "refresh_token")[0]!.value}` },
    });
    const bearer = { authorization: `Bearer ${((await refreshed.json()) as { access_token: string }).access_token}` };
    const { items } = (await (await gw("/api/v1/users/me/oauth-identities", { headers: bearer })).json()) as {
      items: { id: string }[];
    };
    expect(
      (await gw(`/api/v1/users/me/oauth-identities/${items[0]!.id}`, { method: "DELETE", headers: bearer })).status,
    ).toBe(204);
    expect(await (await gw("/api/v1/users/me/oauth-identities", { headers: bearer })).json()).toEqual({ items: [] });
  });

  it("sends a declining person to the failure page with error=oauth_denied and no session", async () => {
    const started = await authorize(gw);
    const res = await callback(gw, await atProvider(started, "deny"), started.flowCookie);
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe(`${FAILURE}?error=oauth_denied`);
    expect(cookieOf(res, "refresh_token")).toEqual([]);
    expect(cookieOf(res, "sca_oauth_flow")).toHaveLength(1);
  });

  it("sends a tampered state, or a callback without the flow cookie, to the failure page", async () => {
    provider.people.set("eve-sub", { email: "eve@example.com", email_verified: true, name: "Eve", groups: [] });
    const started = await authorize(gw);
    const path = new URL(await atProvider(started, { subject: "eve-sub" }), BROWSER_ORIGIN);
    const state = path.searchParams.get("state")!;
    path.searchParams.set("state", `${state.slice(0, -4)}AAAA`);
    const tampered = await callback(gw, `${path.pathname}${path.search}`, started.flowCookie);
    expect(tampered.headers.get("location")).toBe(`${FAILURE}?error=invalid_state`);
    path.searchParams.set("state", state);
    const cookieless = await gw(`${path.pathname}${path.search}`);
    expect(cookieless.headers.get("location")).toBe(`${FAILURE}?error=invalid_state`);
    expect(cookieOf(tampered, "refresh_token")).toEqual([]);
  });
});

describe("callback query", () => {
  it("refuses a repeated parameter with 422 rather than guessing which one counts", async () => {
    const res = await gw("/api/auth/oauth/oidc/callback?code=a&code=b&state=s");
    expect(await problemOf(res)).toMatchObject({ status: 422, errors: [{ path: "query.code" }] });
  });
});

describe("OpenAPI", () => {
  it("documents every route under both prefixes", async () => {
    const { paths } = (await (await gw("/api/openapi.json")).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    for (const prefix of ["/auth", "/v1/auth"]) {
      for (const path of ["/oauth/providers", "/oauth/{provider}/authorize", "/oauth/{provider}/callback"])
        expect(paths[`${prefix}${path}`]?.get).toBeDefined();
    }
    expect(Object.keys(paths["/v1/users/me/oauth-identities/{identity_id}"]!)).toContain("delete");
  });
});

describe("demo read-only", () => {
  it("refuses authorize, and the callback before any exchange (the code stays unspent)", async () => {
    const demo = await startGatewayWith({ DEMO_READ_ONLY: "true" });
    expect(await problemOf(await demo("/api/auth/oauth/oidc/authorize"))).toMatchObject({
      status: 403,
      code: "demo_read_only",
    });

    provider.people.set("lin-sub", { email: "lin@example.com", email_verified: true, name: "Lin", groups: [] });
    const started = await authorize(gw);
    const path = await atProvider(started, { subject: "lin-sub" });
    secrets.push(new URL(path, BROWSER_ORIGIN).searchParams.get("code")!);
    const refused = await callback(demo, path, started.flowCookie);
    expect(await problemOf(refused)).toMatchObject({ status: 403, code: "demo_read_only" });
    expect(refused.headers.getSetCookie()).toEqual([]);
    // Had the demo gateway exchanged the code, the provider would refuse it a second time.
    const res = await callback(gw, path, started.flowCookie);
    expect(res.headers.get("location")).toBe("/dashboard");
  });
});

describe("secrets", () => {
  it("never shows the client secret, codes, flow cookies or tokens outside their cookies, nor in a log line", () => {
    const bodies = answers.join("\n").replaceAll(/(refresh_token|sca_oauth_flow)=[^;"]*/g, "$1=<cookie>");
    const logs = logLines.join("");
    expect(logs).toMatch(/"route":"\/auth\/oauth\/\{provider\}\/callback"/);
    for (const secret of secrets) {
      expect(secret.length).toBeGreaterThan(8);
      expect(bodies).not.toContain(secret);
      expect(logs).not.toContain(secret);
    }
    for (const secret of logSecrets) expect(logs).not.toContain(secret);
  });
});
