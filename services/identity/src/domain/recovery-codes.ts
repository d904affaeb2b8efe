// Recovery codes: ten one-shot codes shown once at enrolment, each 50 random bits written as xxxxx-xxxxx in a
// base32 alphabet without look-alikes. Stored as SHA-256 digests (their entropy and the sign-in throttle make a
// slow hash unnecessary).
import { createHash, randomInt } from "node:crypto";

export const RECOVERY_CODE_COUNT = 10;
const ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"; // no i, l, o, 0, 1

export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const chars = Array.from({ length: 10 }, () => ALPHABET[randomInt(ALPHABET.length)]).join("");
    return `${chars.slice(0, 5)}-${chars.slice(5)}`;
  });
}

/** Null when the text cannot be a recovery code. */
export function recoveryCodeDigest(code: string): string | null {
  const normalized = code.toLowerCase().replace(/[\s-]/g, "");
  if (!/^[a-z2-9]{10}$/.test(normalized)) return null;
  return createHash("sha256").update(normalized).digest("hex");
}
