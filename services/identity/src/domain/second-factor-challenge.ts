// The pending token a password sign-in answers when the user has a second factor. It grants nothing: it is
// signed under its own key (derived from SECRET_KEY), has its own type, and only CompleteSecondFactor reads it.
import { createHmac } from "node:crypto";
import { errors, jwtVerify, SignJWT } from "jose";

export const CHALLENGE_TTL_SECONDS = 300;
const TYPE = "mfa_pending";
const ISSUER = "sca-identity";

function challengeKey(secretKey: string): Uint8Array {
  return createHmac("sha256", secretKey).update("sca/identity/mfa-pending/v1").digest();
}

export async function issueChallenge(
  userId: string,
  secretKey: string,
  now = new Date(),
): Promise<{ token: string; expiresIn: number }> {
  const iat = Math.floor(now.getTime() / 1000);
  const token = await new SignJWT({ type: TYPE })
    .setProtectedHeader({ alg: "HS256", typ: "sca-mfa+jwt" })
    .setSubject(userId)
    .setIssuer(ISSUER)
    .setIssuedAt(iat)
    .setExpirationTime(iat + CHALLENGE_TTL_SECONDS)
    .sign(challengeKey(secretKey));
  return { token, expiresIn: CHALLENGE_TTL_SECONDS };
}

/** The user id of a valid, unexpired challenge, or null. */
export async function challengeUserId(token: string, secretKey: string, now = new Date()): Promise<string | null> {
  try {
    const { payload } = await jwtVerify(token, challengeKey(secretKey), {
      algorithms: ["HS256"],
      issuer: ISSUER,
      typ: "sca-mfa+jwt",
      currentDate: now,
    });
    return payload.type === TYPE && typeof payload.sub === "string" ? payload.sub : null;
  } catch (err) {
    if (err instanceof errors.JOSEError || err instanceof TypeError) return null;
    throw err;
  }
}
