// Identity's answers for API keys, kept in Redis for the `cache_seconds` identity allows, under the key identity
// deletes when it revokes or narrows a key: "sca:auth:api-key:<key_prefix>" (proto/sca/identity/v1/access.proto).
// The entry holds a fingerprint of the whole bearer next to the caller token, so a bearer that only shares the
// prefix never hits. The fingerprint is an HMAC under a key derived from SECRET_KEY: Redis never holds anything
// that could confirm a guessed key.
import { createHmac, createSecretKey, timingSafeEqual } from "node:crypto";
import type { Logger } from "@sca/log";
import type { Redis } from "@sca/redis";

export const API_KEY_ANSWER_NAMESPACE = "sca:auth:api-key:";

// The prefix part of tos_<prefix>_<secret>, as identity parses it (services/identity/src/domain/api-key-format.ts).
const KEY_PREFIX = /^tos_([a-z0-9]{8,32})_[A-Za-z0-9_-]{20,128}$/;

interface StoredAnswer {
  fingerprint: string;
  caller_token: string;
}

export interface ApiKeyAnswers {
  /** The cached caller token for exactly this bearer, or null (no entry, another key, Redis down). */
  read(bearer: string): Promise<string | null>;
  write(bearer: string, callerToken: string, seconds: number): Promise<void>;
}

export function apiKeyPrefixOf(bearer: string): string | null {
  return KEY_PREFIX.exec(bearer)?.[1] ?? null;
}

export function redisApiKeyAnswers(redis: Redis, secretKey: string, logger: Logger, namespace: string): ApiKeyAnswers {
  // Made once: createHmac given bytes makes a KeyObject on every call, at about four times the cost of the MAC.
  const fingerprintKey = createSecretKey(
    createHmac("sha256", secretKey).update("sca/api-key-answer-fingerprint/v1").digest(),
  );
  const fingerprintOf = (bearer: string) => createHmac("sha256", fingerprintKey).update(bearer).digest();

  return {
    async read(bearer) {
      const prefix = apiKeyPrefixOf(bearer);
      if (!prefix) return null;
      let raw: string | null;
      try {
        raw = await redis.get(`${namespace}${prefix}`);
      } catch (err) {
        // Redis holds no truth: without it every API-key request asks identity.
        logger.warn({ err }, "cached API-key answer not read: redis unavailable");
        return null;
      }
      if (!raw) return null;
      const stored = parse(raw);
      if (!stored) return null;
      const expected = Buffer.from(stored.fingerprint, "hex");
      const actual = fingerprintOf(bearer);
      return expected.length === actual.length && timingSafeEqual(expected, actual) ? stored.caller_token : null;
    },

    async write(bearer, callerToken, seconds) {
      const prefix = apiKeyPrefixOf(bearer);
      if (!prefix || seconds <= 0) return;
      const value: StoredAnswer = { fingerprint: fingerprintOf(bearer).toString("hex"), caller_token: callerToken };
      try {
        await redis.set(`${namespace}${prefix}`, JSON.stringify(value), "EX", seconds);
      } catch (err) {
        logger.warn({ err }, "API-key answer not cached: redis unavailable");
      }
    },
  };
}

function parse(raw: string): StoredAnswer | null {
  try {
    const value = JSON.parse(raw) as Partial<StoredAnswer>;
    return typeof value.fingerprint === "string" && typeof value.caller_token === "string"
      ? { fingerprint: value.fingerprint, caller_token: value.caller_token }
      : null;
  } catch {
    return null;
  }
}
