// AccessService.Authenticate: the gateway's one question, "who is this bearer?". A bearer starting with tos_
// is an API key; anything else must be an access token.
import { create } from "@bufbuild/protobuf";
import type { ConnectRouter } from "@connectrpc/connect";
import type { MikroORM } from "@mikro-orm/postgresql";
import { ProblemError } from "@sca/problem";
import { AccessService, AuthenticateResponseSchema } from "@sca/proto/sca/identity/v1/access_pb.ts";
import { clientAddressFrom, signCallerToken } from "@sca/rpc";
import { verifyAccessToken } from "../domain/access-token.ts";
import { deriveApiKeyHashKey, looksLikeApiKey } from "../domain/api-key-format.ts";
import { ACCESS_ANSWER_SECONDS } from "../store/access-answer-cache.ts";
import { API_KEY_ANSWER_SECONDS } from "../store/api-key-answer-cache.ts";
import { apiKeyCaller } from "../store/api-key-caller.ts";
import { userCaller } from "../store/callers.ts";
import { sessionIsOpen } from "../store/refresh-tokens.ts";

export interface AccessServiceDeps {
  orm: MikroORM;
  secretKey: string;
  groupCascade: boolean;
}

/** An access token's answer is cached only when the token names its session (which can end), never past its expiry. */
export function accessAnswerLifetime(sessionId: string | null, expiresAt: Date, now: Date): number {
  if (!sessionId) return 0;
  return Math.max(0, Math.min(ACCESS_ANSWER_SECONDS, Math.floor((expiresAt.getTime() - now.getTime()) / 1000)));
}

/** A cached answer must never outlive the key it vouches for. */
export function answerLifetime(expiresAt: Date | null, now: Date): number {
  if (!expiresAt) return API_KEY_ANSWER_SECONDS;
  return Math.max(0, Math.min(API_KEY_ANSWER_SECONDS, Math.floor((expiresAt.getTime() - now.getTime()) / 1000)));
}

const invalid = () => ProblemError.unauthorized("The bearer credential is invalid or expired.");
// A valid access token of an account deactivated or gone: still Unauthenticated, with its own code, because the
// WebSocket closes such a socket with its own reason (auth_inactive); the gateway's HTTP answer stays the same.
const inactive = () =>
  new ProblemError({ status: 401, code: "account_inactive", detail: "The account is deactivated or gone." });
// A valid access token of a session that ended: Unauthenticated with its own code, so the gateway's logout can
// stay idempotent (a second logout with the same bearer is 204) while every other route refuses the token.
const sessionEnded = () =>
  new ProblemError({ status: 401, code: "session_ended", detail: "The bearer credential is invalid or expired." });

export function registerAccessService(router: ConnectRouter, deps: AccessServiceDeps): void {
  const apiKeyHashKey = deriveApiKeyHashKey(deps.secretKey);
  router.service(AccessService, {
    async authenticate(req) {
      const bearer = req.bearer.trim();
      if (!bearer) throw ProblemError.unauthorized();
      const address = clientAddressFrom(req.client);
      const client = { ip: address.ip || null, userAgent: address.userAgent || null };
      if (looksLikeApiKey(bearer)) {
        const resolved = await apiKeyCaller(deps.orm.em.fork(), bearer, {
          hashKey: apiKeyHashKey,
          cascade: deps.groupCascade,
          ...client,
        });
        if (!resolved) throw invalid();
        return create(AuthenticateResponseSchema, {
          callerToken: await signCallerToken(resolved.caller, deps.secretKey),
          cacheSeconds: answerLifetime(resolved.expiresAt, new Date()),
        });
      }
      const claims = await verifyAccessToken(bearer, deps.secretKey);
      if (!claims) throw invalid();
      const em = deps.orm.em.fork();
      const caller = await userCaller(em, claims.userId, { cascade: deps.groupCascade, ...client });
      if (!caller) throw inactive();
      // A session ended by logout, refresh-token reuse, a password reset or a deactivation ends its access tokens.
      if (claims.sessionId && !(await sessionIsOpen(em, claims.sessionId))) throw sessionEnded();
      return create(AuthenticateResponseSchema, {
        callerToken: await signCallerToken(caller, deps.secretKey),
        cacheSeconds: accessAnswerLifetime(claims.sessionId, claims.expiresAt, new Date()),
      });
    },
  });
}
