// Interactive access tokens: JWT, HS256 under SECRET_KEY, lifetime ACCESS_TOKEN_EXPIRE_MINUTES.
// Verification accepts nothing else: no other algorithm, no `none`, no other key, no other token type.
import { randomUUID } from "node:crypto";
import { errors, jwtVerify, SignJWT } from "jose";
import { UUID } from "@sca/ids";

const ACCESS_TYPE = "access";
const ISSUER = "sca-identity";

export interface AccessClaims {
  userId: string;
  tokenId: string;
  /** The session (refresh-token family) the token was issued to; null for a token issued outside one. */
  sessionId: string | null;
  expiresAt: Date;
}

function key(secretKey: string): Uint8Array {
  return new TextEncoder().encode(secretKey);
}

export async function issueAccessToken(
  userId: string,
  secretKey: string,
  lifetimeMinutes: number,
  now = new Date(),
  sessionId?: string,
): Promise<{ token: string; expiresIn: number }> {
  const expiresIn = lifetimeMinutes * 60;
  const iat = Math.floor(now.getTime() / 1000);
  const token = await new SignJWT(sessionId ? { type: ACCESS_TYPE, sid: sessionId } : { type: ACCESS_TYPE })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(userId)
    .setIssuer(ISSUER)
    .setJti(randomUUID())
    .setIssuedAt(iat)
    .setExpirationTime(iat + expiresIn)
    .sign(key(secretKey));
  return { token, expiresIn };
}

/** The claims of a valid access token, or null for anything else (tampered, expired, wrong alg or type). */
export async function verifyAccessToken(token: string, secretKey: string): Promise<AccessClaims | null> {
  try {
    const { payload } = await jwtVerify(token, key(secretKey), { algorithms: ["HS256"], issuer: ISSUER });
    if (payload.type !== ACCESS_TYPE || typeof payload.sub !== "string" || !UUID.test(payload.sub) || !payload.exp)
      return null;
    if (payload.sid !== undefined && (typeof payload.sid !== "string" || !UUID.test(payload.sid))) return null;
    return {
      userId: payload.sub,
      tokenId: payload.jti ?? "",
      sessionId: payload.sid ?? null,
      expiresAt: new Date(payload.exp * 1000),
    };
  } catch (err) {
    if (err instanceof errors.JOSEError || err instanceof TypeError) return null;
    throw err;
  }
}
