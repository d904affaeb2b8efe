// The gateway caches AccessService answers for API keys in Redis for a few seconds. Revoking or narrowing a
// key deletes that entry at once, so the change holds on the very next request.
import type { Logger } from "@sca/log";
import type { Redis } from "@sca/redis";

/** Shared with the gateway through the AccessService contract (proto/sca/identity/v1/access.proto). */
export const API_KEY_ANSWER_NAMESPACE = "sca:auth:api-key:";

/** How long the gateway may reuse an API-key answer. */
export const API_KEY_ANSWER_SECONDS = 30;

export interface ApiKeyAnswerCache {
  forget(prefixes: readonly string[]): Promise<void>;
}

export function redisApiKeyAnswerCache(
  redis: Redis,
  logger: Logger,
  namespace = API_KEY_ANSWER_NAMESPACE,
): ApiKeyAnswerCache {
  return {
    async forget(prefixes) {
      if (prefixes.length === 0) return;
      try {
        await redis.del(...prefixes.map((p) => `${namespace}${p}`));
      } catch (err) {
        // With Redis unreachable the gateway cannot read the entry either; it expires within the cache lifetime.
        logger.error({ err, prefixes }, "could not drop cached API-key answers");
      }
    },
  };
}
