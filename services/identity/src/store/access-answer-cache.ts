// The gateway caches AccessService answers for access tokens in Redis (docs/gateway-authentication.md), keyed by the
// token's session (its `sid`, the refresh-token family of the sign-in). Identity keeps that cache honest:
// - a session that ends (logout, refresh-token reuse) gets a tombstone under its key, which the gateway never
//   overwrites (its write replaces only an answer), so the session's access tokens are asked about again at once;
// - anything that changes what a user's caller carries or whether it is admitted at all (deactivation, password
//   reset, super_admin, memberships, the group tree) replaces the epoch: every entry written under an older epoch
//   is a miss. The gateway reads the epoch before it asks identity, so an answer computed before the change can
//   never be cached as current.
// Both are written after the change committed. Redis unreachable: the gateway cannot read entries either.
import { randomUUID } from "node:crypto";
import type { Logger } from "@sca/log";
import type { Redis } from "@sca/redis";

/** Shared with the gateway through the AccessService contract (proto/sca/identity/v1/access.proto). */
export const ACCESS_ANSWER_NAMESPACE = "sca:auth:access:";

/** How long the gateway may reuse an access-token answer (never past the token's own expiry). */
export const ACCESS_ANSWER_SECONDS = 30;

export const accessEpochKey = (namespace: string) => `${namespace}epoch`;
export const accessSessionKey = (namespace: string, sessionId: string) => `${namespace}session:${sessionId}`;
export const SESSION_ENDED = "ended";

export interface AccessAnswerCache {
  /** These sessions ended: their tokens are asked about again on their next request. */
  endSessions(sessionIds: readonly string[]): Promise<void>;
  /** Callers may have changed: every cached access-token answer is dropped. */
  forgetAll(): Promise<void>;
}

export function redisAccessAnswerCache(
  redis: Redis,
  logger: Logger,
  namespace = ACCESS_ANSWER_NAMESPACE,
): AccessAnswerCache {
  return {
    async endSessions(sessionIds) {
      if (sessionIds.length === 0) return;
      try {
        // A tombstone outlives any cached answer of the session (entries live at most ACCESS_ANSWER_SECONDS).
        const batch = redis.multi();
        for (const id of sessionIds)
          batch.set(accessSessionKey(namespace, id), SESSION_ENDED, "EX", ACCESS_ANSWER_SECONDS * 2);
        await batch.exec();
      } catch (err) {
        logger.error({ err, sessionIds }, "could not drop cached access-token answers of ended sessions");
      }
    },
    async forgetAll() {
      try {
        await redis.set(accessEpochKey(namespace), randomUUID());
      } catch (err) {
        logger.error({ err }, "could not drop cached access-token answers");
      }
    },
  };
}
