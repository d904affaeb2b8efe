// Time-based one-time passwords (RFC 6238): SHA-1, 6 digits, 30-second steps, as every authenticator app
// expects. A code is accepted one step either side of now (clock drift) and only for a step later than the
// last one accepted, so an observed code cannot be replayed.
import { generateSecret, generateURI, verifySync } from "otplib";

export const TOTP_PERIOD_SECONDS = 30;
const DRIFT_SECONDS = TOTP_PERIOD_SECONDS;
const ISSUER = "SCA Portal";

export function newTotpSecret(): string {
  return generateSecret({ length: 20 });
}

export function totpUri(secret: string, accountEmail: string): string {
  return generateURI({
    issuer: ISSUER,
    label: accountEmail,
    secret,
    period: TOTP_PERIOD_SECONDS,
    digits: 6,
    algorithm: "sha1",
  });
}

/** A code as typed: spaces and dashes ignored. Null when it cannot be a TOTP code. */
export function totpCodeShape(code: string): string | null {
  const digits = code.replace(/[\s-]/g, "");
  return /^\d{6}$/.test(digits) ? digits : null;
}

/** The accepted time step, or null. `lastStep` is the step of the last accepted code (null if none). */
export function acceptTotp(secret: string, code: string, now: Date, lastStep: number | null): number | null {
  const token = totpCodeShape(code);
  if (!token) return null;
  const result = verifySync({
    secret,
    token,
    period: TOTP_PERIOD_SECONDS,
    digits: 6,
    algorithm: "sha1",
    epoch: Math.floor(now.getTime() / 1000),
    epochTolerance: DRIFT_SECONDS,
    ...(lastStep === null ? {} : { afterTimeStep: lastStep }),
  });
  return result.valid && "timeStep" in result ? result.timeStep : null;
}
