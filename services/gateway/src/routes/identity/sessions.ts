// Sessions under /v1/auth and /auth (AccountService): password sign-in and its second step, refresh, logout. The
// refresh token only ever travels in the HttpOnly cookie; the access token only in the body.
// Choices: docs/identity.md ("HTTP routes").
import type { Response } from "express";
import { z } from "zod";
import type { Session } from "@sca/proto/sca/identity/v1/accounts_pb.ts";
import { problemResponse } from "../../api/problem-schema.ts";
import { defineRoute, type Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";
import { AUTH_TAGS, authOperationId, type AuthPrefix } from "../../http/auth-paths.ts";
import { clientAddressOf, clientOf } from "../../http/client-address.ts";
import { cookieValue, REFRESH_COOKIE, refreshCookieClearer, refreshCookieWriter } from "../../http/cookies.ts";
import { perAddressLimitText } from "../../http/rate-limit.ts";
import { codePoints, emailAddress } from "./fields.ts";

// Fixed by the spec (login 5/minute per IP, Retry-After 60); the second step gets the same allowance.
const SIGN_IN_LIMIT = { limit: 5, windowSeconds: 60, retryAfter: 60 } as const;

const tokenResponseSchema = z
  .object({
    access_token: z.string(),
    expires_in: z.number().int().meta({ description: "Seconds the access token stays valid" }),
    token_type: z.literal("bearer"),
  })
  .meta({ id: "TokenResponse" });

const secondFactorChallengeSchema = z
  .object({
    mfa_required: z.literal(true),
    mfa_token: z.string().meta({ description: "Grants nothing but POST .../login/mfa; never accepted as a bearer" }),
    expires_in: z.number().int(),
  })
  .meta({ id: "SecondFactorChallenge" });

const setsRefreshCookie = {
  "Set-Cookie": z.string().meta({
    description: "refresh_token, HttpOnly, SameSite=Strict, once for Path=/api/auth and once for Path=/api/v1/auth",
  }),
};

function tokenResponse(session: Session): z.input<typeof tokenResponseSchema> {
  return { access_token: session.accessToken, expires_in: session.expiresIn, token_type: "bearer" };
}

/** The session routes under one of the auth prefixes (routes/identity/index.ts lists them under each). */
export function sessionRoutes(ctx: GatewayContext, prefix: AuthPrefix): Route[] {
  const accounts = ctx.clients.identity.accounts;
  const limits = {
    login: ctx.rateLimit({ name: "login", ...SIGN_IN_LIMIT, key: clientAddressOf }),
    secondFactor: ctx.rateLimit({ name: "login-mfa", ...SIGN_IN_LIMIT, key: clientAddressOf }),
    refresh: ctx.rateLimit({ name: "refresh", ...ctx.config.REFRESH_RATE_LIMIT, key: clientAddressOf }),
  };

  const setRefreshCookie = refreshCookieWriter(ctx.config);
  /** The answer that starts a session: the access token, and the refresh cookie on both paths. */
  const signedIn = (res: Response, session: Session) => {
    setRefreshCookie(res, session);
    return { status: 200 as const, body: tokenResponse(session) };
  };
  const clearRefreshCookie = refreshCookieClearer(ctx.config);

  return [
    defineRoute({
      method: "post",
      path: `${prefix}/login`,
      summary: "Sign in with e-mail and password",
      description:
        "A user with a second factor gets `mfa_required` and an `mfa_token` for POST .../login/mfa, and no cookie. " +
        "5 per minute per client address (Retry-After: 60); an address with too many failed sign-ins is refused for a while " +
        "whatever the password (sign_in_throttled, Retry-After: seconds left).",
      tags: AUTH_TAGS,
      operationId: authOperationId(prefix, "login"),
      middleware: [limits.login],
      request: { body: z.object({ email: emailAddress, password: codePoints(1, 256) }) },
      responses: {
        200: {
          description: "Signed in (token response and refresh cookie), or a second factor is required",
          schema: z.union([tokenResponseSchema, secondFactorChallengeSchema]),
          headers: z.object(setsRefreshCookie),
        },
        401: problemResponse("Wrong e-mail address or password, or a deactivated account (invalid_credentials)"),
        429: problemResponse("rate_limited (Retry-After: 60) or sign_in_throttled (Retry-After: seconds left)"),
      },
      handler: async ({ body, req, res }) => {
        const { outcome } = await accounts.login({ email: body.email, password: body.password, client: clientOf(req) });
        if (outcome.case === "challenge") {
          return {
            status: 200,
            body: { mfa_required: true, mfa_token: outcome.value.mfaToken, expires_in: outcome.value.expiresIn },
          };
        }
        return signedIn(res, outcome.value!);
      },
    }),
    defineRoute({
      method: "post",
      path: `${prefix}/login/mfa`,
      summary: "Complete a sign-in with a second factor",
      description:
        "code: a current TOTP code or an unused recovery code. 5 per minute per client address (Retry-After: 60); " +
        "wrong codes count toward the address's failed-sign-in throttle.",
      tags: AUTH_TAGS,
      operationId: authOperationId(prefix, "completeSecondFactor"),
      middleware: [limits.secondFactor],
      request: { body: z.object({ mfa_token: z.string().min(1).max(4096), code: z.string().min(1).max(64) }) },
      responses: {
        200: { description: "Signed in", schema: tokenResponseSchema, headers: z.object(setsRefreshCookie) },
        401: problemResponse("The mfa_token is invalid or expired, or the code is wrong (invalid_second_factor)"),
        429: problemResponse("rate_limited (Retry-After: 60) or sign_in_throttled (Retry-After: seconds left)"),
      },
      handler: async ({ body, req, res }) => {
        const { session } = await accounts.completeSecondFactor({
          mfaToken: body.mfa_token,
          code: body.code,
          client: clientOf(req),
        });
        return signedIn(res, session!);
      },
    }),
    defineRoute({
      method: "post",
      path: `${prefix}/refresh`,
      summary: "Exchange the refresh cookie for a new access token and refresh cookie",
      description:
        "Presenting a refresh token that was already exchanged ends its whole sign-in (reuse detection). " +
        perAddressLimitText(ctx.config, "REFRESH_RATE_LIMIT"),
      tags: AUTH_TAGS,
      operationId: authOperationId(prefix, "refresh"),
      middleware: [limits.refresh],
      responses: {
        200: {
          description: "A new access token; the cookie is replaced",
          schema: tokenResponseSchema,
          headers: z.object(setsRefreshCookie),
        },
        401: problemResponse(
          "No cookie, or an unknown, expired, revoked or reused refresh token (invalid_refresh_token); the cookie is cleared",
        ),
        429: problemResponse("Too many refreshes from this address"),
      },
      handler: async ({ req, res }) => {
        try {
          const { session } = await accounts.refresh({
            refreshToken: cookieValue(req, REFRESH_COOKIE),
            client: clientOf(req),
          });
          return signedIn(res, session!);
        } catch (err) {
          clearRefreshCookie(res);
          throw err;
        }
      },
    }),
    defineRoute({
      method: "post",
      path: `${prefix}/logout`,
      summary: "Sign out: end the refresh cookie's sign-in",
      description:
        "Idempotent: 204 with or without a cookie, and for an unknown or already revoked one. Clears the cookie.",
      tags: AUTH_TAGS,
      operationId: authOperationId(prefix, "logout"),
      // A second logout with the same access token finds its session ended: still 204 (the cookie's sign-in is
      // ended all the same), while every other route refuses that token.
      auth: ctx.auth.route("caller", { admitEndedSession: true }),
      responses: { 204: { description: "Signed out; the cookie is cleared" } },
      handler: async ({ call, req, res }) => {
        await accounts.logout({ refreshToken: cookieValue(req, REFRESH_COOKIE), client: clientOf(req) }, call);
        clearRefreshCookie(res);
        return { status: 204 };
      },
    }),
  ];
}
