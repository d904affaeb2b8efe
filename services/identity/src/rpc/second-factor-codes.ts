// Checking a second-factor code: a current TOTP code (not replayed) or an unused recovery code.
import type { EntityManager } from "@mikro-orm/postgresql";
import { recoveryCodeDigest } from "../domain/recovery-codes.ts";
import { open, secretBoxKey } from "../domain/secret-box.ts";
import { acceptTotp, totpCodeShape } from "../domain/totp.ts";
import { recordTotpStep, spendRecoveryCode, totpOf } from "../store/second-factors.ts";

export const TOTP_SEAL_PURPOSE = "sca/identity/totp-secret/v1";

export function totpKey(secretKey: string): Buffer {
  return secretBoxKey(secretKey, TOTP_SEAL_PURPOSE);
}

/** "totp" or "recovery_code" when the code is accepted (and spent), else null. Needs a confirmed factor. */
export async function acceptSecondFactorCode(
  em: EntityManager,
  deps: { secretKey: string },
  userId: string,
  code: string,
  now: Date,
): Promise<"totp" | "recovery_code" | null> {
  const factor = await totpOf(em, userId);
  if (!factor?.confirmedAt) return null;
  if (totpCodeShape(code)) {
    const last = factor.lastUsedStep === null ? null : Number(factor.lastUsedStep);
    const step = acceptTotp(open(factor.secretSealed, totpKey(deps.secretKey)), code, now, last);
    if (step === null) return null;
    await recordTotpStep(em, userId, step);
    return "totp";
  }
  const digest = recoveryCodeDigest(code);
  return digest && (await spendRecoveryCode(em, userId, digest, now)) ? "recovery_code" : null;
}
