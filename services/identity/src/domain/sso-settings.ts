// The SSO configuration of the identity service: the spec's OAUTH_*, OIDC_*, AUTH_AUTO_REGISTER and
// DEFAULT_MEMBER_ROLE keys, checked more strictly than the shared parsers do, plus the keys the spec leaves
// to us: where the callback is reached from the browser, and the endpoints of the hosted providers (which
// have no discovery we may rely on). A bad value stops the service at start-up with the key named.
import { key, keys, parse, type ConfigOf, type KeySpec } from "@sca/config";
import { parseDefaultMemberRole, parseGroupRoleMap, type GroupRoleMap } from "./group-role-map.ts";
import { checkIssuer, oidcScopes } from "./oidc-discovery.ts";
import type { MembershipRole } from "./roles.ts";

export const PROVIDER_NAMES = ["idp_a", "idp_b", "oidc"] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

export function isProviderName(value: string): value is ProviderName {
  return (PROVIDER_NAMES as readonly string[]).includes(value);
}

const httpsUrl = (raw: string, what: string): string => {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`must be ${what}`);
  }
  if (url.protocol !== "https:") throw new Error("must use https");
  return raw;
};

// An endpoint of a hosted provider: required once that provider's client id and secret are both set.
function hostedEndpoint(prefix: "OAUTH_IDP_A" | "OAUTH_IDP_B"): KeySpec<string> {
  return {
    parse: (raw, env) => {
      if (raw !== undefined) return httpsUrl(raw, "an https URL");
      if (env[`${prefix}_CLIENT_ID`]?.trim() && env[`${prefix}_CLIENT_SECRET`]?.trim()) {
        throw new Error(`is required when ${prefix}_CLIENT_ID and ${prefix}_CLIENT_SECRET are set`);
      }
      return "";
    },
  };
}

export const ssoKeys = {
  DOMAIN: keys.DOMAIN,
  // Hosted provider A's OAuth app (docs/identity-sso.md): its id and secret turn the provider on; the three endpoint
  // URLs are then required, the scopes asked for are the default's unless set.
  OAUTH_IDP_A_CLIENT_ID: key(parse.text("")),
  OAUTH_IDP_A_CLIENT_SECRET: key(parse.text(""), true),
  OAUTH_IDP_A_AUTHORIZE_URL: hostedEndpoint("OAUTH_IDP_A"),
  OAUTH_IDP_A_TOKEN_URL: hostedEndpoint("OAUTH_IDP_A"),
  OAUTH_IDP_A_USERINFO_URL: hostedEndpoint("OAUTH_IDP_A"),
  OAUTH_IDP_A_SCOPES: key(parse.text("email profile")),

  // Hosted provider B's OAuth app, as provider A's.
  OAUTH_IDP_B_CLIENT_ID: key(parse.text("")),
  OAUTH_IDP_B_CLIENT_SECRET: key(parse.text(""), true),
  OAUTH_IDP_B_AUTHORIZE_URL: hostedEndpoint("OAUTH_IDP_B"),
  OAUTH_IDP_B_TOKEN_URL: hostedEndpoint("OAUTH_IDP_B"),
  OAUTH_IDP_B_USERINFO_URL: hostedEndpoint("OAUTH_IDP_B"),
  OAUTH_IDP_B_SCOPES: key(parse.text("email profile")),

  /** The browser-visible origin and prefix of the REST surface; callbacks are {this}/auth/oauth/{provider}/callback. */
  OAUTH_CALLBACK_BASE_URL: {
    parse: (raw, env) =>
      (raw ?? `https://${keys.DOMAIN.parse(env.DOMAIN?.trim() || undefined, env)}/api`).replace(/\/+$/, ""),
  } satisfies KeySpec<string>,
  OAUTH_STATE_TTL_SECONDS: key(parse.int(300, { min: 30, max: 3600 })),
  /** Each call identity makes to a provider (token exchange, user info, OIDC discovery), connect to answer. */
  OAUTH_HTTP_TIMEOUT_SECONDS: key(parse.int(10, { min: 1, max: 120 })),
  OAUTH_LOGIN_REDIRECT_DEFAULT: key(parse.text("/")),
  OAUTH_LOGIN_REDIRECT_FAILURE: key(parse.text("/login")),
  OIDC_ISSUER: {
    parse: (raw) => {
      if (raw === undefined) return "";
      const checked = checkIssuer(raw);
      if (!checked.ok) throw new Error(checked.message);
      return checked.issuer;
    },
  } satisfies KeySpec<string>,
  // The portal's client at OIDC_ISSUER: with its secret and the issuer, OpenID Connect sign-in is on.
  OIDC_CLIENT_ID: key(parse.text("")),
  OIDC_CLIENT_SECRET: key(parse.text(""), true),
  OIDC_SCOPES: { parse: (raw, env) => oidcScopes(parse.text("openid email profile")(raw, env)) } satisfies KeySpec<
    string[]
  >,
  OIDC_GROUPS_CLAIM: key(parse.text("groups")),
  OIDC_GROUP_ROLE_MAP: { parse: (raw) => parseGroupRoleMap(raw ?? "") } satisfies KeySpec<GroupRoleMap>,
  AUTH_AUTO_REGISTER: key(parse.bool(false)),
  DEFAULT_MEMBER_ROLE: { parse: (raw) => parseDefaultMemberRole(raw ?? "") } satisfies KeySpec<MembershipRole | null>,
} as const;

export type SsoConfig = ConfigOf<typeof ssoKeys>;

export type ProviderSettings =
  | {
      name: ProviderName;
      kind: "hosted";
      configured: boolean;
      clientId: string;
      clientSecret: string;
      scopes: string[];
      authorizeUrl: string;
      tokenUrl: string;
      userinfoUrl: string;
    }
  | {
      name: "oidc";
      kind: "oidc";
      configured: boolean;
      clientId: string;
      clientSecret: string;
      scopes: string[];
      issuer: string;
    };

function hosted(name: "idp_a" | "idp_b", c: SsoConfig): ProviderSettings {
  const [id, secret, authorizeUrl, tokenUrl, userinfoUrl, scopes] =
    name === "idp_a"
      ? [
          c.OAUTH_IDP_A_CLIENT_ID,
          c.OAUTH_IDP_A_CLIENT_SECRET,
          c.OAUTH_IDP_A_AUTHORIZE_URL,
          c.OAUTH_IDP_A_TOKEN_URL,
          c.OAUTH_IDP_A_USERINFO_URL,
          c.OAUTH_IDP_A_SCOPES,
        ]
      : [
          c.OAUTH_IDP_B_CLIENT_ID,
          c.OAUTH_IDP_B_CLIENT_SECRET,
          c.OAUTH_IDP_B_AUTHORIZE_URL,
          c.OAUTH_IDP_B_TOKEN_URL,
          c.OAUTH_IDP_B_USERINFO_URL,
          c.OAUTH_IDP_B_SCOPES,
        ];
  return {
    name,
    kind: "hosted",
    configured: Boolean(id && secret),
    clientId: id,
    clientSecret: secret,
    scopes: scopes.split(/[\s,]+/).filter(Boolean),
    authorizeUrl,
    tokenUrl,
    userinfoUrl,
  };
}

/** Every provider, configured or not: client id and secret both set (and, for oidc, the issuer). */
export function providerSettings(c: SsoConfig): ProviderSettings[] {
  return [
    hosted("idp_a", c),
    hosted("idp_b", c),
    {
      name: "oidc",
      kind: "oidc",
      configured: Boolean(c.OIDC_ISSUER && c.OIDC_CLIENT_ID && c.OIDC_CLIENT_SECRET),
      clientId: c.OIDC_CLIENT_ID,
      clientSecret: c.OIDC_CLIENT_SECRET,
      scopes: c.OIDC_SCOPES,
      issuer: c.OIDC_ISSUER,
    },
  ];
}
