// The caller's own second factor: begin TOTP enrolment, confirm it (recovery codes shown once), remove it.
import { create } from "@bufbuild/protobuf";
import type { HandlerContext } from "@connectrpc/connect";
import { ProblemError, type FieldViolation } from "@sca/problem";
import {
  BeginTotpEnrolmentResponseSchema,
  ConfirmTotpEnrolmentResponseSchema,
  RemoveSecondFactorResponseSchema,
  type ConfirmTotpEnrolmentRequest,
  type RemoveSecondFactorRequest,
} from "@sca/proto/sca/identity/v1/accounts_pb.ts";
import { requirePerson, type Caller } from "@sca/rpc";
import { newRecoveryCodes, recoveryCodeDigest } from "../domain/recovery-codes.ts";
import { open, seal } from "../domain/secret-box.ts";
import { acceptTotp, newTotpSecret, totpUri } from "../domain/totp.ts";
import { callerActor } from "@sca/audit";
import { emitAudit } from "../events/account-events.ts";
import { accountById, setMfaEnabled, type AccountRow } from "../store/accounts.ts";
import {
  confirmTotp,
  deleteSecondFactor,
  replaceRecoveryCodes,
  savePendingTotp,
  totpOf,
} from "../store/second-factors.ts";
import type { AccountDeps } from "./account-deps.ts";
import { failIfAny, lengthField } from "./field-checks.ts";
import { acceptSecondFactorCode, totpKey } from "./second-factor-codes.ts";

const invalidCode = () =>
  new ProblemError({
    status: 422,
    code: "invalid_second_factor_code",
    detail: "The code is incorrect or has expired.",
  });

async function signedInAccount(
  deps: AccountDeps,
  em: Parameters<typeof accountById>[0],
  ctx: HandlerContext,
): Promise<{ caller: Caller; account: AccountRow }> {
  const caller = requirePerson(ctx, () =>
    ProblemError.unauthorized("A second factor belongs to a signed-in person, not an API key."),
  );
  const account = await accountById(em, caller.user_id);
  if (!account || !account.isActive) throw ProblemError.unauthorized();
  return { caller, account };
}

function codeField(code: string): void {
  const violations: FieldViolation[] = [];
  lengthField(code, "body.code", 1, 64, violations);
  failIfAny(violations);
}

export function secondFactorEnrolmentHandlers(deps: AccountDeps) {
  return {
    async beginTotpEnrolment(_req: unknown, ctx: HandlerContext) {
      return deps.orm.em.fork().transactional(async (em) => {
        const { account } = await signedInAccount(deps, em, ctx);
        if (account.mfaEnabled)
          throw new ProblemError({
            status: 409,
            code: "second_factor_enabled",
            detail: "A second factor is already enabled; remove it first.",
          });
        const secret = newTotpSecret();
        await savePendingTotp(em, account.id, seal(secret, totpKey(deps.secretKey)));
        return create(BeginTotpEnrolmentResponseSchema, { secret, otpauthUri: totpUri(secret, account.email) });
      });
    },

    async confirmTotpEnrolment(req: ConfirmTotpEnrolmentRequest, ctx: HandlerContext) {
      codeField(req.code);
      const now = new Date();
      const codes = await deps.orm.em.fork().transactional(async (em) => {
        const { caller, account } = await signedInAccount(deps, em, ctx);
        const factor = await totpOf(em, account.id);
        if (!factor || factor.confirmedAt) {
          throw new ProblemError({
            status: 409,
            code: "no_enrolment_pending",
            detail: "No second-factor enrolment is in progress.",
          });
        }
        const step = acceptTotp(open(factor.secretSealed, totpKey(deps.secretKey)), req.code, now, null);
        if (step === null) return null;
        const recovery = newRecoveryCodes();
        await confirmTotp(em, account.id, step, now);
        await replaceRecoveryCodes(
          em,
          account.id,
          recovery.map((c) => recoveryCodeDigest(c)!),
        );
        await setMfaEnabled(em, account.id, true);
        emitAudit(em, {
          action: "auth.mfa.enrolled",
          actor: callerActor(caller),
          targetId: account.id,
          outcome: "success",
          details: { method: "totp" },
          at: now,
        });
        return recovery;
      });
      if (!codes) throw invalidCode();
      return create(ConfirmTotpEnrolmentResponseSchema, { recoveryCodes: codes });
    },

    async removeSecondFactor(req: RemoveSecondFactorRequest, ctx: HandlerContext) {
      codeField(req.code);
      const now = new Date();
      const removed = await deps.orm.em.fork().transactional(async (em) => {
        const { caller, account } = await signedInAccount(deps, em, ctx);
        if (!account.mfaEnabled) throw ProblemError.notFound("No second factor is enabled.");
        if (!(await acceptSecondFactorCode(em, deps, account.id, req.code, now))) return false;
        await deleteSecondFactor(em, account.id);
        await setMfaEnabled(em, account.id, false);
        emitAudit(em, {
          action: "auth.mfa.removed",
          actor: callerActor(caller),
          targetId: account.id,
          outcome: "success",
          at: now,
        });
        return true;
      });
      if (!removed) throw invalidCode();
      return create(RemoveSecondFactorResponseSchema);
    },
  };
}
