// The OAuth `state` and the flow cookie that travel with one sign-in attempt.
//
// The state is a signed JWT (HS256 under a key derived from SECRET_KEY, lifetime OAUTH_STATE_TTL_SECONDS)
// naming the provider and where to return. It is visible to the provider and in browser history, so the
// PKCE verifier and the ID-token nonce are NOT in it: they live in the flow cookie, an encrypted JWT set on
// the browser that started the flow and carrying the state's id. A callback is accepted only when both are
// valid and belong together, which also defeats login CSRF (a code minted for another browser has no cookie).
import { createHmac, randomBytes, randomUUID } from "node:crypto";
import { EncryptJWT, errors, jwtDecrypt, jwtVerify, SignJWT } from "jose";

const STATE_TYPE = "sca-oauth-state+jwt";
const ISSUER = "sca-identity";

export interface SignInStart {
  /** The `state` parameter sent to the provider. */
  state: string;
  /** The flow cookie's value. */
  flowCookie: string;
  codeVerifier: string;
  nonce: string;
  expiresIn: number;
}

export interface SignInFlow {
  redirectAfter: string | null;
  codeVerifier: string;
  nonce: string;
}

export type StateFailure = "invalid_state" | "state_expired";
export type StateReading = { ok: true; flow: SignInFlow } | { ok: false; reason: StateFailure };

// Distinct keys per purpose, so neither token can ever pass as an access token or as the other.
function derivedKey(secretKey: string, purpose: string): Uint8Array {
  return createHmac("sha256", secretKey).update(`sca/${purpose}/v1`).digest();
}

const random = () => randomBytes(32).toString("base64url");

export async function startSignIn(opts: {
  provider: string;
  redirectAfter: string | null;
  ttlSeconds: number;
  secretKey: string;
  now?: Date;
}): Promise<SignInStart> {
  const iat = Math.floor((opts.now ?? new Date()).getTime() / 1000);
  const exp = iat + opts.ttlSeconds;
  const flowId = randomUUID();
  const codeVerifier = random();
  const nonce = random();
  const state = await new SignJWT({ prv: opts.provider, rda: opts.redirectAfter })
    .setProtectedHeader({ alg: "HS256", typ: STATE_TYPE })
    .setIssuer(ISSUER)
    .setJti(flowId)
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .sign(derivedKey(opts.secretKey, "oauth-state"));
  const flowCookie = await new EncryptJWT({ prv: opts.provider, cv: codeVerifier, nonce })
    .setProtectedHeader({ alg: "dir", enc: "A256GCM" })
    .setIssuer(ISSUER)
    .setJti(flowId)
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .encrypt(derivedKey(opts.secretKey, "oauth-flow"));
  return { state, flowCookie, codeVerifier, nonce, expiresIn: opts.ttlSeconds };
}

/** Checks the state and flow cookie of a callback for `provider`; expiry is told apart for the person's sake. */
export async function readSignIn(opts: {
  provider: string;
  state: string;
  flowCookie: string;
  secretKey: string;
  now?: Date;
}): Promise<StateReading> {
  const currentDate = opts.now ?? new Date();
  try {
    const { payload: state } = await jwtVerify(opts.state, derivedKey(opts.secretKey, "oauth-state"), {
      algorithms: ["HS256"],
      typ: STATE_TYPE,
      issuer: ISSUER,
      currentDate,
      requiredClaims: ["jti", "exp"],
    });
    const { payload: flow } = await jwtDecrypt(opts.flowCookie, derivedKey(opts.secretKey, "oauth-flow"), {
      keyManagementAlgorithms: ["dir"],
      contentEncryptionAlgorithms: ["A256GCM"],
      issuer: ISSUER,
      currentDate,
      requiredClaims: ["jti", "exp"],
    });
    const rda = state.rda;
    if (
      state.prv !== opts.provider ||
      flow.prv !== opts.provider ||
      flow.jti !== state.jti ||
      typeof flow.cv !== "string" ||
      typeof flow.nonce !== "string" ||
      (rda !== null && typeof rda !== "string")
    ) {
      return { ok: false, reason: "invalid_state" };
    }
    return { ok: true, flow: { redirectAfter: rda, codeVerifier: flow.cv, nonce: flow.nonce } };
  } catch (err) {
    if (err instanceof errors.JWTExpired) return { ok: false, reason: "state_expired" };
    if (err instanceof errors.JOSEError || err instanceof TypeError) return { ok: false, reason: "invalid_state" };
    throw err;
  }
}
