// OAuth / OIDC sign-in under /v1/auth and /auth (SsoService): the provider list, authorize and callback.
// Identity decides everything about the flow (state, PKCE, the exchange, the account, where the browser goes);
// the gateway keeps to the edge: demo read-only, the per-address authorize limit, the flow and refresh cookies and
// the 302s. Choices: docs/identity-sso.md ("HTTP routes").
import type { RequestHandler, Response } from "express";
import { z } from "zod";
import { ProblemError } from "@sca/problem";
import type { FlowCookie } from "@sca/proto/sca/identity/v1/sso_pb.ts";
import { problemResponse } from "../../api/problem-schema.ts";
import { defineRoute, type Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";
import { AUTH_PREFIXES, AUTH_TAGS, authOperationId, type AuthPrefix } from "../../http/auth-paths.ts";
import { PUBLIC_PREFIX } from "../../http/canonical-path.ts";
import { clientAddressOf, clientOf } from "../../http/client-address.ts";
import { cookieValue, refreshCookieWriter } from "../../http/cookies.ts";
import { perAddressLimitText } from "../../http/rate-limit.ts";

/** Named by identity (docs/identity-sso.md): it carries the PKCE verifier and nonce, encrypted. */
const FLOW_COOKIE = "sca_oauth_flow";
// Lax, not Strict: the callback is a top-level navigation from the provider's site.
const FLOW_COOKIE_OPTIONS = { httpOnly: true, secure: true, sameSite: "lax" } as const;

const providerParams = z.object({
  provider: z.string().max(64).meta({ description: "idp_a, idp_b or oidc; any other name is 404" }),
});
const providersSchema = z
  .object({
    providers: z.array(z.object({ name: z.string(), configured: z.boolean() })),
  })
  .meta({ id: "OAuthProviders" });
// Lengths far above what providers send; a parameter given twice is a 422, never a guess at which one counts.
const callbackValue = () => z.string().max(4096).optional();

const redirect = (description: string, setCookie: string) => ({
  description,
  headers: z.object({ Location: z.string(), "Set-Cookie": z.string().meta({ description: setCookie }) }),
});

// Sign-in may create accounts and links, so the demo refuses it on GET too.
const refuseInDemo: RequestHandler = (_req, _res, next) => {
  next(
    new ProblemError({
      status: 403,
      code: "demo_read_only",
      detail: "This is a read-only demo: sign-in through an identity provider is disabled.",
    }),
  );
};

function setFlowCookie(res: Response, cookie: FlowCookie): void {
  res.cookie(cookie.name, cookie.value, {
    ...FLOW_COOKIE_OPTIONS,
    path: cookie.path,
    maxAge: cookie.maxAgeSeconds * 1000,
  });
}

// Identity scopes the flow cookie to `{callback base path}/auth/oauth`; the callback is reached at that path
// plus `/{provider}/callback`, so the route the browser came in by names the path to clear.
function clearFlowCookie(res: Response, prefix: AuthPrefix): void {
  res.clearCookie(FLOW_COOKIE, { ...FLOW_COOKIE_OPTIONS, path: `${PUBLIC_PREFIX}${prefix}/oauth` });
}

export function oauthRoutes(ctx: GatewayContext): Route[] {
  const sso = ctx.clients.identity.sso;
  const writeRefreshCookie = refreshCookieWriter(ctx.config);
  const authorizeLimit = ctx.rateLimit({
    name: "oauth-authorize",
    ...ctx.config.OAUTH_AUTHORIZE_RATE_LIMIT,
    key: clientAddressOf,
  });
  const demo = ctx.config.DEMO_READ_ONLY ? [refuseInDemo] : [];

  const routesUnder = (prefix: AuthPrefix): Route[] => [
    defineRoute({
      method: "get",
      path: `${prefix}/oauth/providers`,
      summary: "The sign-in providers and whether each is configured",
      tags: AUTH_TAGS,
      operationId: authOperationId(prefix, "listOAuthProviders"),
      responses: {
        200: {
          description:
            "Every provider; configured is true only when its client id and secret (and for oidc the issuer) are set",
          schema: providersSchema,
        },
      },
      handler: async () => {
        const { providers } = await sso.listProviders({});
        return { status: 200, body: { providers: providers.map((p) => ({ name: p.name, configured: p.configured })) } };
      },
    }),
    defineRoute({
      method: "get",
      path: `${prefix}/oauth/{provider}/authorize`,
      summary: "Start signing in at a provider",
      description:
        "302 to the provider's authorization page with a signed state; sets the flow cookie that binds the callback to " +
        "this browser. redirect_after is honoured only as a same-site path. " +
        perAddressLimitText(ctx.config, "OAUTH_AUTHORIZE_RATE_LIMIT"),
      tags: AUTH_TAGS,
      operationId: authOperationId(prefix, "authorizeOAuth"),
      middleware: [...demo, authorizeLimit],
      request: { params: providerParams, query: z.object({ redirect_after: z.string().max(2048).optional() }) },
      responses: {
        302: redirect(
          "To the provider",
          `${FLOW_COOKIE}, HttpOnly, Secure, SameSite=Lax, Path=/api/auth/oauth, Max-Age=OAUTH_STATE_TTL_SECONDS`,
        ),
        403: problemResponse("Read-only demo (demo_read_only)"),
        404: problemResponse("Unknown provider"),
        429: problemResponse("Too many sign-ins started from this address"),
        503: problemResponse(
          "The provider is not configured (oauth_provider_disabled, with the flag oauth_provider_disabled: true), " +
            "or its discovery document cannot be used (oauth_provider_unavailable)",
        ),
      },
      handler: async ({ params, query, res }) => {
        const begun = await sso.beginSignIn({ provider: params.provider, redirectAfter: query.redirect_after ?? "" });
        setFlowCookie(res, begun.flowCookie!);
        return { status: 302, headers: { Location: begun.authorizationUrl, "Cache-Control": "no-store" } };
      },
    }),
    defineRoute({
      method: "get",
      path: `${prefix}/oauth/{provider}/callback`,
      summary: "Finish signing in: the provider's redirect",
      description:
        "Always a redirect: on success to redirect_after (or OAUTH_LOGIN_REDIRECT_DEFAULT) with the refresh cookie, on " +
        "failure to OAUTH_LOGIN_REDIRECT_FAILURE with ?error=<reason> (oauth_denied when the person declined). The flow cookie is cleared.",
      tags: AUTH_TAGS,
      operationId: authOperationId(prefix, "completeOAuth"),
      middleware: demo,
      request: {
        params: providerParams,
        query: z.object({
          code: callbackValue(),
          state: callbackValue(),
          error: callbackValue(),
          iss: callbackValue(),
        }),
      },
      responses: {
        302: redirect("Back to the portal", `refresh_token on success (as at login); ${FLOW_COOKIE} cleared`),
        403: problemResponse("Read-only demo (demo_read_only), refused before any exchange"),
        404: problemResponse("Unknown provider"),
      },
      handler: async ({ params, query, req, res }) => {
        const done = await sso.completeSignIn({
          provider: params.provider,
          code: query.code ?? "",
          state: query.state ?? "",
          error: query.error ?? "",
          iss: query.iss ?? "",
          flowCookie: cookieValue(req, FLOW_COOKIE),
          client: clientOf(req),
        });
        clearFlowCookie(res, prefix);
        if (done.session) writeRefreshCookie(res, done.session);
        return { status: 302, headers: { Location: done.redirectTo, "Cache-Control": "no-store" } };
      },
    }),
  ];

  return AUTH_PREFIXES.flatMap(routesUnder);
}
