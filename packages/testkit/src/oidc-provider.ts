// A real OpenID provider (the oidc-provider package) on an ephemeral https port, standing in for the
// deployment's identity provider. People are registered by the test; the interaction step signs in whoever
// the test names (or declines, as a person pressing "cancel" would), so no HTML forms are scraped.
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair } from "jose";
import type Provider from "oidc-provider";
import type { InteractionResults } from "oidc-provider";
import type { CustomFetch } from "openid-client";
import { makeTestCertificates } from "./test-ca.ts";

export interface Person {
  email: string;
  email_verified: boolean;
  name: string;
  groups: string[];
}

export interface TestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The test CA's certificate (PEM): what a process outside Node trusts the provider through. */
  caPem: string;
  /** Trusts the test CA and nothing else; what the identity service and the "browser" use. */
  fetch: CustomFetch;
  people: Map<string, Person>;
  /** Who signs in at the next interaction, or "deny" to decline. */
  nextSignIn: { subject: string } | "deny";
  close(): Promise<void>;
}

export async function startTestProvider(opts: {
  redirectUris: string[];
  discoveryExtras?: Record<string, unknown>;
  /** The client's id (default "sca-portal"): the audience of its ID tokens. */
  clientId?: string;
  /** Scope claims (email, ...) go into the ID token itself, as a workload identity token carries them. */
  claimsInIdToken?: boolean;
}): Promise<TestProvider> {
  const certs = await makeTestCertificates();
  // Loaded by the tests that start one, not by every file importing the test kit (about 0.5 s).
  const [{ default: OidcProvider }, { Agent, fetch: undiciFetch }] = await Promise.all([
    import("oidc-provider"),
    import("undici"),
  ]);
  const agent = new Agent({ connect: { ca: certs.caPem } });
  const fetch: CustomFetch = (url, init) => undiciFetch(url, { ...init, dispatcher: agent });
  const people = new Map<string, Person>();
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  const clientId = opts.clientId ?? "sca-portal";
  const clientSecret = "sca-portal-secret-for-tests";

  const state: { provider?: Provider } = {};
  const handle: TestProvider = {
    issuer: "",
    clientId,
    clientSecret,
    caPem: certs.caPem,
    fetch,
    people,
    nextSignIn: "deny",
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await agent.close();
    },
  };

  const server: Server = createServer({ cert: certs.certPem, key: certs.keyPem }, (req, res) => {
    if (req.url?.startsWith("/interaction/")) {
      interact(state.provider!, handle, req, res).catch((err: Error) => {
        res.statusCode = 500;
        res.end(err.message);
      });
      return;
    }
    void state.provider!.callback()(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  handle.issuer = `https://localhost:${(server.address() as AddressInfo).port}`;

  state.provider = new OidcProvider(handle.issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: opts.redirectUris,
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_post",
      },
    ],
    jwks: { keys: [{ ...(await exportJWK(privateKey)), alg: "RS256", use: "sig", kid: "test" }] },
    cookies: { keys: ["test-provider-cookie-key"] },
    scopes: ["openid", "email", "profile", "groups"],
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"], groups: ["groups"] },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    pkce: { required: () => true },
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
    discovery: opts.discoveryExtras ?? {},
    conformIdTokenClaims: !opts.claimsInIdToken,
    findAccount: (_ctx, sub) => {
      const person = people.get(sub);
      return person ? { accountId: sub, claims: () => ({ sub, ...person }) } : undefined;
    },
  });
  return handle;
}

async function interact(
  provider: Provider,
  handle: TestProvider,
  req: Parameters<Provider["interactionDetails"]>[0],
  res: Parameters<Provider["interactionDetails"]>[1],
): Promise<void> {
  const details = await provider.interactionDetails(req, res);
  let result: InteractionResults;
  if (handle.nextSignIn === "deny") {
    result = { error: "access_denied", error_description: "The person declined." };
  } else if (details.prompt.name === "login") {
    result = { login: { accountId: handle.nextSignIn.subject } };
  } else {
    const grant = new provider.Grant({
      accountId: details.session!.accountId,
      clientId: details.params.client_id as string,
    });
    const missing = details.prompt.details.missingOIDCScope as string[] | undefined;
    if (missing) grant.addOIDCScope(missing.join(" "));
    result = { consent: { grantId: await grant.save() } };
  }
  await provider.interactionFinished(req, res, result, { mergeWithLastSubmission: false });
}

/**
 * Plays the browser from the authorization URL through the provider's redirects, keeping its cookies,
 * until the provider sends it to `callbackPrefix`; returns that callback URL.
 */
export async function followToCallback(
  fetch: CustomFetch,
  authorizationUrl: string,
  callbackPrefix: string,
): Promise<URL> {
  const jar = new Map<string, string>();
  let url = authorizationUrl;
  for (let hop = 0; hop < 10; hop++) {
    const res = await fetch(url, {
      method: "GET",
      redirect: "manual",
      body: undefined,
      headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join("; ") },
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const eq = pair!.indexOf("=");
      jar.set(pair!.slice(0, eq).trim(), pair!.slice(eq + 1).trim());
    }
    const location = res.headers.get("location");
    if (!location) throw new Error(`provider stopped at ${url} with ${res.status}: ${await res.text()}`);
    const next = new URL(location, url);
    if (next.href.startsWith(callbackPrefix)) return next;
    url = next.href;
  }
  throw new Error("too many redirects at the provider");
}

/**
 * An ID token for `subject` from the provider, through the authorization-code flow a person would go through:
 * what the tests hand a service as its workload identity token (audience: the provider's client id).
 */
export async function identityToken(provider: TestProvider, subject: string, redirectUri: string): Promise<string> {
  const client = await import("openid-client");
  const config = await client.discovery(
    new URL(provider.issuer),
    provider.clientId,
    { client_secret: provider.clientSecret },
    client.ClientSecretPost(provider.clientSecret),
    { [client.customFetch]: provider.fetch },
  );
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: "openid email",
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    state,
  });
  provider.nextSignIn = { subject };
  const callback = await followToCallback(provider.fetch, url.href, redirectUri);
  const tokens = await client.authorizationCodeGrant(config, callback, {
    pkceCodeVerifier: verifier,
    expectedState: state,
  });
  if (!tokens.id_token) throw new Error("the provider issued no ID token");
  return tokens.id_token;
}
