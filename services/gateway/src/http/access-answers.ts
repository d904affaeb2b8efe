// Identity's answers for access tokens, kept in Redis for the `cache_seconds` identity allows (at most 30 s, never
// past the token's expiry). Keyed by the token's session: "sca:auth:access:session:<sid>" (the `sid` claim, the
// refresh-token family of the sign-in), read together with the epoch "sca:auth:access:epoch" in one MGET.
// Revocation stays immediate because identity, after every change that ends a session or changes a caller:
// - writes a tombstone under the session's key (logout, refresh-token reuse); the gateway writes with NX, so an
//   answer computed before the session ended can never replace it;
// - replaces the epoch (deactivation, password reset, roles, memberships, the group tree); an entry holds the
//   epoch read *before* identity was asked, so an answer computed before the change never matches again.
// The entry holds a fingerprint of the whole bearer and the client address (ip, User-Agent), so another token
// of the same session, or the same token from another client, never hits: the caller token's ip and user_agent
// are always the requester's. Redis only ever holds an HMAC under a key derived from SECRET_KEY.
// No in-process layer in front of Redis: it would not see identity's tombstones and epochs without a broadcast. What
// is remembered in process is only what the bearer's bytes decide (its signature, session and expiry, and its
// fingerprint for one client): two HMACs a request otherwise (docs/gateway-authentication.md).
// Choices and limits: docs/gateway-authentication.md.
import { createHmac, createSecretKey, randomUUID, timingSafeEqual } from "node:crypto";
import type { Logger } from "@sca/log";
import type { Redis } from "@sca/redis";
import { UUID } from "@sca/ids";

export const ACCESS_ANSWER_NAMESPACE = "sca:auth:access:";

interface StoredAnswer {
  fingerprint: string;
  epoch: string;
  caller_token: string;
}

export interface AccessClient {
  ip: string;
  userAgent: string;
}

/** A hit, or what a write after asking identity needs (null: do not cache). */
export type AccessAnswerRead = { hit: true; callerToken: string } | { hit: false; slot: AccessAnswerSlot | null };

export interface AccessAnswerSlot {
  sessionId: string;
  epoch: string;
}

export interface AccessAnswers {
  /** The cached caller token for exactly this bearer and client, or where to cache identity's answer. */
  read(bearer: string, client: AccessClient): Promise<AccessAnswerRead>;
  write(
    slot: AccessAnswerSlot,
    bearer: string,
    client: AccessClient,
    callerToken: string,
    seconds: number,
  ): Promise<void>;
}

/** What a bearer's bytes decide, remembered: its session and expiry, and its fingerprint for the last client. */
interface VerifiedBearer {
  sessionId: string;
  expiresAtMs: number;
  client: string;
  fingerprint: Buffer;
}

// Bearers that verified, newest last (a Map keeps insertion order): at most this many, the oldest out first.
const VERIFIED_BEARERS_MAX = 4096;

export function redisAccessAnswers(redis: Redis, secretKey: string, logger: Logger, namespace: string): AccessAnswers {
  // KeyObjects made once: createHmac given bytes makes one on every call, at about four times the cost of the MAC.
  const jwtKey = createSecretKey(Buffer.from(secretKey));
  const fingerprintKey = createSecretKey(
    createHmac("sha256", secretKey).update("sca/access-answer-fingerprint/v1").digest(),
  );
  const fingerprintOf = (bearer: string, client: AccessClient) =>
    createHmac("sha256", fingerprintKey).update(`${bearer}\n${client.ip}\n${client.userAgent}`).digest();
  const verified = new Map<string, VerifiedBearer>();
  const epochKey = `${namespace}epoch`;
  const sessionKey = (sessionId: string) => `${namespace}session:${sessionId}`;

  /** The bearer's session and its fingerprint for `client` when it is a valid access token, else null. */
  function verifiedBearer(bearer: string, client: AccessClient): VerifiedBearer | null {
    const clientKey = `${client.ip}\n${client.userAgent}`;
    let entry = verified.get(bearer);
    if (entry && entry.expiresAtMs <= Date.now()) {
      verified.delete(bearer);
      return null;
    }
    if (!entry) {
      const session = sessionOf(bearer);
      if (!session) return null;
      entry = { ...session, client: clientKey, fingerprint: fingerprintOf(bearer, client) };
      if (verified.size >= VERIFIED_BEARERS_MAX) verified.delete(verified.keys().next().value!);
      verified.set(bearer, entry);
    } else if (entry.client !== clientKey) {
      entry.client = clientKey;
      entry.fingerprint = fingerprintOf(bearer, client);
    }
    return entry;
  }

  /** The session of a valid access token (identity's format: HS256, issuer sca-identity, type access), or null. */
  function sessionOf(bearer: string): { sessionId: string; expiresAtMs: number } | null {
    const parts = bearer.split(".");
    if (parts.length !== 3) return null;
    const [header, payload, signature] = parts as [string, string, string];
    const expected = createHmac("sha256", jwtKey).update(`${header}.${payload}`).digest();
    const actual = Buffer.from(signature, "base64url");
    if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) return null;
    try {
      const h = JSON.parse(Buffer.from(header, "base64url").toString()) as { alg?: unknown };
      const c = JSON.parse(Buffer.from(payload, "base64url").toString()) as Record<string, unknown>;
      const valid =
        h.alg === "HS256" &&
        c.type === "access" &&
        c.iss === "sca-identity" &&
        typeof c.exp === "number" &&
        c.exp * 1000 > Date.now() &&
        typeof c.sid === "string" &&
        UUID.test(c.sid);
      return valid ? { sessionId: c.sid as string, expiresAtMs: (c.exp as number) * 1000 } : null;
    } catch {
      return null;
    }
  }

  return {
    async read(bearer, client) {
      const bearerOf = verifiedBearer(bearer, client);
      if (!bearerOf) return { hit: false, slot: null };
      const { sessionId } = bearerOf;
      let epoch: string | null | undefined;
      let raw: string | null | undefined;
      try {
        [epoch, raw] = await redis.mget(epochKey, sessionKey(sessionId));
      } catch (err) {
        // Redis holds no truth: without it every request asks identity.
        logger.warn({ err }, "cached access-token answer not read: redis unavailable");
        return { hit: false, slot: null };
      }
      if (!epoch) {
        // No epoch yet (a fresh or flushed Redis): start one, and cache from the next request on. Identity's own
        // write (SET without NX) always wins over this one.
        await redis.set(epochKey, randomUUID(), "NX").catch(() => undefined);
        return { hit: false, slot: null };
      }
      const stored = raw ? parse(raw) : null;
      if (stored && stored.epoch === epoch) {
        const expected = Buffer.from(stored.fingerprint, "hex");
        const actual = bearerOf.fingerprint;
        if (expected.length === actual.length && timingSafeEqual(expected, actual)) {
          return { hit: true, callerToken: stored.caller_token };
        }
      }
      // A tombstone (the session ended) is never overwritten: NX on write keeps it, and identity refuses the token.
      return { hit: false, slot: { sessionId, epoch } };
    },

    async write(slot, bearer, client, callerToken, seconds) {
      if (seconds <= 0) return;
      const value: StoredAnswer = {
        fingerprint: fingerprintOf(bearer, client).toString("hex"),
        epoch: slot.epoch,
        caller_token: callerToken,
      };
      const key = sessionKey(slot.sessionId);
      try {
        // NX: a tombstone written meanwhile (logout) stays. An older entry of the session (another client or an
        // older epoch) is replaced only when it is not a tombstone, atomically.
        await redis.eval(REPLACE_UNLESS_ENDED, 1, key, JSON.stringify(value), String(seconds));
      } catch (err) {
        logger.warn({ err }, "access-token answer not cached: redis unavailable");
      }
    },
  };
}

// Sets KEYS[1] to ARGV[1] for ARGV[2] seconds unless it holds a tombstone (anything that is not a JSON object).
const REPLACE_UNLESS_ENDED = `
local current = redis.call('GET', KEYS[1])
if current and string.sub(current, 1, 1) ~= '{' then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'EX', tonumber(ARGV[2]))
return 1`;

function parse(raw: string): StoredAnswer | null {
  if (!raw.startsWith("{")) return null;
  try {
    const value = JSON.parse(raw) as Partial<StoredAnswer>;
    return typeof value.fingerprint === "string" &&
      typeof value.epoch === "string" &&
      typeof value.caller_token === "string"
      ? { fingerprint: value.fingerprint, epoch: value.epoch, caller_token: value.caller_token }
      : null;
  } catch {
    return null;
  }
}
