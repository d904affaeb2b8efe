// Forgot-password and reset-password. Forgot-password answers the same for every address (no enumeration):
// the cooldown is kept per address whether or not an account exists.
import { create } from "@bufbuild/protobuf";
import type { EntityManager } from "@mikro-orm/postgresql";
import { ProblemError, type FieldViolation } from "@sca/problem";
import { clientAddressFrom } from "@sca/rpc";
import {
  ForgotPasswordResponseSchema,
  ResetPasswordResponseSchema,
  type ForgotPasswordRequest,
  type ResetPasswordRequest,
} from "@sca/proto/sca/identity/v1/accounts_pb.ts";
import { hashPassword } from "../domain/password-hash.ts";
import { newOpaqueToken, hashOpaqueToken } from "../domain/opaque-token.ts";
import { RESET_TOKEN_TTL_MINUTES, resetCooldownSecondsLeft, resetUrl } from "../domain/password-reset-link.ts";
import { clientActor, type Actor } from "@sca/audit";
import { emitAudit, emitPasswordResetRequested } from "../events/account-events.ts";
import { accountByEmail, accountById, setPasswordHash, type AccountRow } from "../store/accounts.ts";
import {
  consumeResetToken,
  insertResetToken,
  lastResetRequest,
  recordResetRequest,
  spendResetTokensOf,
} from "../store/password-resets.ts";
import { revokeAllOfUser } from "../store/refresh-tokens.ts";
import { clearThrottle } from "../store/sign-in-throttles.ts";
import type { AccountDeps } from "./account-deps.ts";
import { emailField, failIfAny, lengthField, newPasswordField } from "./field-checks.ts";

const badToken = () =>
  new ProblemError({
    status: 422,
    code: "invalid_reset_token",
    detail: "The reset link is invalid, expired or already used.",
  });

/** Issues a one-shot token and publishes the reset e-mail event (self-service and administrator alike). */
export async function issuePasswordReset(
  em: EntityManager,
  deps: AccountDeps,
  account: AccountRow,
  actor: Actor,
  requestedBy: "self_service" | "admin",
  now: Date,
): Promise<void> {
  const token = newOpaqueToken();
  const expiresAt = new Date(now.getTime() + RESET_TOKEN_TTL_MINUTES * 60_000);
  await insertResetToken(em, { userId: account.id, hash: token.hash, expiresAt });
  emitPasswordResetRequested(em, {
    userId: account.id,
    email: account.email,
    fullName: account.fullName,
    resetUrl: resetUrl(deps.settings.PASSWORD_RESET_BASE_URL, token.raw),
    expiresAt,
    requestedBy,
    at: now,
  });
  emitAudit(em, {
    action: requestedBy === "admin" ? "user.password_reset_issued" : "auth.password_reset.requested",
    actor,
    targetId: account.id,
    outcome: "success",
    at: now,
  });
}

export function passwordResetHandlers(deps: AccountDeps) {
  return {
    async forgotPassword(req: ForgotPasswordRequest) {
      const violations: FieldViolation[] = [];
      const email = emailField(req.email, "body.email", violations);
      failIfAny(violations);
      const now = new Date();
      const cooldown = deps.settings.PASSWORD_RESET_EMAIL_COOLDOWN_SECONDS;
      const retryAfter = await deps.orm.em.fork().transactional(async (em) => {
        const wait = resetCooldownSecondsLeft(await lastResetRequest(em, email), cooldown, now);
        if (wait > 0) return wait;
        await recordResetRequest(em, email, now);
        const account = await accountByEmail(em, email);
        if (account && account.isActive && !account.isServiceAccount) {
          await issuePasswordReset(
            em,
            deps,
            account,
            clientActor(clientAddressFrom(req.client), { email }),
            "self_service",
            now,
          );
        }
        return 0;
      });
      return create(ForgotPasswordResponseSchema, { retryAfterSeconds: retryAfter });
    },

    async resetPassword(req: ResetPasswordRequest) {
      const violations: FieldViolation[] = [];
      lengthField(req.token, "body.token", 8, 256, violations);
      newPasswordField(req.newPassword, "body.new_password", violations);
      failIfAny(violations);
      const passwordHash = await hashPassword(req.newPassword);
      const now = new Date();
      const done = await deps.orm.em.fork().transactional(async (em) => {
        const userId = await consumeResetToken(em, hashOpaqueToken(req.token), now);
        const account = userId ? await accountById(em, userId) : null;
        if (!account || !account.isActive) return false;
        await setPasswordHash(em, account.id, passwordHash);
        await spendResetTokensOf(em, account.id, now);
        const revoked = await revokeAllOfUser(em, account.id, now);
        await clearThrottle(em, account.email);
        emitAudit(em, {
          action: "auth.password_reset.completed",
          actor: clientActor(clientAddressFrom(req.client), { userId: account.id, email: account.email }),
          targetId: account.id,
          outcome: "success",
          details: { sessions_revoked: String(revoked) },
          at: now,
        });
        return true;
      });
      if (!done) throw badToken();
      // Every session of the account ended: their access tokens stop at once.
      await deps.accessAnswers.forgetAll();
      return create(ResetPasswordResponseSchema);
    },
  };
}
