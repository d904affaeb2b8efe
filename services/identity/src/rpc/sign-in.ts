// Login, second-factor completion, refresh and logout. Each runs in one transaction that also writes its audit
// events; refusals are decided inside and thrown after commit, so a failure's count and audit are kept.
import { create } from "@bufbuild/protobuf";
import type { EntityManager } from "@mikro-orm/postgresql";
import { ProblemError, type FieldViolation } from "@sca/problem";
import { clientAddressFrom } from "@sca/rpc";
import {
  CompleteSecondFactorResponseSchema,
  LoginResponseSchema,
  LogoutResponseSchema,
  RefreshResponseSchema,
  SecondFactorChallengeSchema,
  type CompleteSecondFactorRequest,
  type LoginRequest,
  type LogoutRequest,
  type RefreshRequest,
  type Session,
} from "@sca/proto/sca/identity/v1/accounts_pb.ts";
import { LOGIN_PASSWORD_MAX } from "../domain/password-policy.ts";
import { hashOpaqueToken } from "../domain/opaque-token.ts";
import { hashPassword, needsRehash, verifyPassword } from "../domain/password-hash.ts";
import { decideRefresh } from "../domain/refresh-rotation.ts";
import { challengeUserId, issueChallenge } from "../domain/second-factor-challenge.ts";
import { afterFailure, refusalSecondsLeft } from "../domain/sign-in-throttle.ts";
import { clientActor, type Actor } from "@sca/audit";
import { emitAudit } from "../events/account-events.ts";
import { accountByEmail, accountById, recordSignIn, setPasswordHash, type AccountRow } from "../store/accounts.ts";
import { lockRefreshToken, markRotated, revokeFamily } from "../store/refresh-tokens.ts";
import { clearThrottle, saveThrottle, throttleOf } from "../store/sign-in-throttles.ts";
import { throttlePolicy, type AccountDeps } from "./account-deps.ts";
import { emailField, failIfAny, lengthField } from "./field-checks.ts";
import { acceptSecondFactorCode } from "./second-factor-codes.ts";
import { issueSession } from "./sessions.ts";

const badCredentials = () =>
  new ProblemError({
    status: 401,
    code: "invalid_credentials",
    detail: "The e-mail address or password is incorrect.",
  });
const badSecondFactor = () =>
  new ProblemError({
    status: 401,
    code: "invalid_second_factor",
    detail: "The sign-in has expired or the code is incorrect.",
  });
const badRefresh = () =>
  new ProblemError({ status: 401, code: "invalid_refresh_token", detail: "The session has ended; sign in again." });

function throttled(seconds: number): ProblemError {
  return new ProblemError({
    status: 429,
    code: "sign_in_throttled",
    detail: "Too many failed sign-ins for this address; try again later.",
    extensions: { retry_after_seconds: seconds },
    headers: { "Retry-After": String(seconds) },
  });
}

// Unknown addresses cost one hash too, so response time does not tell which addresses have accounts.
let decoyHash: Promise<string> | undefined;
const decoy = () => (decoyHash ??= hashPassword("decoy password that matches nothing"));

type Outcome<T> = { ok: true; value: T } | { ok: false; error: ProblemError };

async function settle<T>(deps: AccountDeps, work: (em: EntityManager) => Promise<Outcome<T>>): Promise<T> {
  const outcome = await deps.orm.em.fork().transactional(work);
  if (!outcome.ok) throw outcome.error;
  return outcome.value;
}

/** A failed attempt against an address: counted by the throttle and audited. */
async function recordFailure(
  em: EntityManager,
  deps: AccountDeps,
  email: string,
  actor: Actor,
  targetId: string,
  reason: string,
  now: Date,
): Promise<void> {
  const state = await throttleOf(em, email);
  await saveThrottle(em, email, afterFailure(state, throttlePolicy(deps.settings), now));
  emitAudit(em, { action: "auth.login.failed", actor, targetId, outcome: "failure", details: { reason }, at: now });
}

/** The sign-in succeeded: clear the throttle, stamp last_login_at, open the session, audit. */
async function completeSignIn(
  em: EntityManager,
  deps: AccountDeps,
  account: AccountRow,
  actor: Actor,
  method: string,
  now: Date,
): Promise<Session> {
  await clearThrottle(em, account.email);
  await recordSignIn(em, account.id, now);
  emitAudit(em, {
    action: "auth.login.succeeded",
    actor,
    targetId: account.id,
    outcome: "success",
    details: { method },
    at: now,
  });
  return issueSession(em, deps, account.id, now);
}

export function signInHandlers(deps: AccountDeps) {
  return {
    async login(req: LoginRequest) {
      const violations: FieldViolation[] = [];
      const email = emailField(req.email, "body.email", violations);
      lengthField(req.password, "body.password", 1, LOGIN_PASSWORD_MAX, violations);
      failIfAny(violations);
      const client = clientAddressFrom(req.client);
      const now = new Date();
      return settle(deps, async (em) => {
        const wait = refusalSecondsLeft(await throttleOf(em, email), throttlePolicy(deps.settings), now);
        const account = await accountByEmail(em, email);
        const actor = clientActor(client, { userId: account?.id, email });
        if (wait > 0) {
          emitAudit(em, {
            action: "auth.login.failed",
            actor,
            targetId: account?.id ?? "",
            outcome: "failure",
            details: { reason: "throttled" },
            at: now,
          });
          return { ok: false, error: throttled(wait) };
        }
        const usable = account && account.passwordHash && !account.isServiceAccount ? account : null;
        const matches = await verifyPassword(req.password, usable?.passwordHash ?? (await decoy()));
        if (!usable || !matches) {
          await recordFailure(em, deps, email, actor, account?.id ?? "", "bad_credentials", now);
          return { ok: false, error: badCredentials() };
        }
        // A deactivated account answers like a wrong password, after the password proved who is asking.
        if (!usable.isActive) {
          emitAudit(em, {
            action: "auth.login.failed",
            actor,
            targetId: usable.id,
            outcome: "failure",
            details: { reason: "inactive" },
            at: now,
          });
          return { ok: false, error: badCredentials() };
        }
        if (needsRehash(usable.passwordHash!)) await setPasswordHash(em, usable.id, await hashPassword(req.password));
        if (usable.mfaEnabled) {
          const challenge = await issueChallenge(usable.id, deps.secretKey, now);
          return {
            ok: true,
            value: create(LoginResponseSchema, {
              outcome: {
                case: "challenge",
                value: create(SecondFactorChallengeSchema, {
                  mfaToken: challenge.token,
                  expiresIn: challenge.expiresIn,
                }),
              },
            }),
          };
        }
        const session = await completeSignIn(em, deps, usable, actor, "password", now);
        return { ok: true, value: create(LoginResponseSchema, { outcome: { case: "session", value: session } }) };
      });
    },

    async completeSecondFactor(req: CompleteSecondFactorRequest) {
      const violations: FieldViolation[] = [];
      lengthField(req.code, "body.code", 1, 64, violations);
      lengthField(req.mfaToken, "body.mfa_token", 1, 4096, violations);
      failIfAny(violations);
      const now = new Date();
      const userId = await challengeUserId(req.mfaToken, deps.secretKey, now);
      if (!userId) throw badSecondFactor();
      const client = clientAddressFrom(req.client);
      return settle(deps, async (em) => {
        const account = await accountById(em, userId);
        if (!account || !account.isActive || !account.mfaEnabled) return { ok: false, error: badSecondFactor() };
        const actor = clientActor(client, { userId: account.id, email: account.email });
        const wait = refusalSecondsLeft(await throttleOf(em, account.email), throttlePolicy(deps.settings), now);
        if (wait > 0) {
          emitAudit(em, {
            action: "auth.login.failed",
            actor,
            targetId: account.id,
            outcome: "failure",
            details: { reason: "throttled" },
            at: now,
          });
          return { ok: false, error: throttled(wait) };
        }
        const method = await acceptSecondFactorCode(em, deps, account.id, req.code, now);
        if (!method) {
          await recordFailure(em, deps, account.email, actor, account.id, "bad_second_factor", now);
          return { ok: false, error: badSecondFactor() };
        }
        const session = await completeSignIn(em, deps, account, actor, method, now);
        return { ok: true, value: create(CompleteSecondFactorResponseSchema, { session }) };
      });
    },

    async refresh(req: RefreshRequest) {
      if (!req.refreshToken || req.refreshToken.length > 512) throw badRefresh();
      const now = new Date();
      const client = clientAddressFrom(req.client);
      let ended: string | null = null;
      try {
        return await settle(deps, async (em) => {
          const token = await lockRefreshToken(em, hashOpaqueToken(req.refreshToken));
          const decision = decideRefresh(
            token && {
              rotatedAt: token.rotatedAt,
              revokedAt: token.revokedAt,
              expiresAt: token.expiresAt,
              userActive: token.userActive,
            },
            now,
          );
          if (decision.kind === "reuse") {
            await revokeFamily(em, token!.familyId, now);
            ended = token!.familyId;
            emitAudit(em, {
              action: "auth.refresh.reuse_detected",
              actor: clientActor(client, { userId: token!.userId }),
              targetId: token!.userId,
              outcome: "failure",
              details: { family_id: token!.familyId },
              at: now,
            });
            return { ok: false, error: badRefresh() };
          }
          if (decision.kind === "refuse") return { ok: false, error: badRefresh() };
          await markRotated(em, token!.id, now);
          const session = await issueSession(em, deps, token!.userId, now, token!.familyId);
          return { ok: true, value: create(RefreshResponseSchema, { session }) };
        });
      } finally {
        // The family's access tokens stop at once, not when the gateway's cached answer expires.
        if (ended) await deps.accessAnswers.endSessions([ended]);
      }
    },

    async logout(req: LogoutRequest) {
      if (!req.refreshToken || req.refreshToken.length > 512) return create(LogoutResponseSchema);
      const now = new Date();
      const client = clientAddressFrom(req.client);
      const ended = await deps.orm.em.fork().transactional(async (em) => {
        const token = await lockRefreshToken(em, hashOpaqueToken(req.refreshToken));
        if (!token || token.revokedAt) return null;
        await revokeFamily(em, token.familyId, now);
        emitAudit(em, {
          action: "auth.logout",
          actor: clientActor(client, { userId: token.userId }),
          targetId: token.userId,
          outcome: "success",
          at: now,
        });
        return token.familyId;
      });
      // The session's access tokens stop on the very next request, not when the gateway's cached answer expires.
      if (ended) await deps.accessAnswers.endSessions([ended]);
      return create(LogoutResponseSchema);
    },
  };
}
