// The one way to open Redis. Redis holds only rebuildable state (rate-limit buckets, short caches, WebSocket
// counts, the write fences' versions, which start afresh when lost), so a Redis outage must never hang a request:
// commands fail fast while the client reconnects.
import { Redis } from "ioredis";
import type { Logger } from "@sca/log";

export type { Redis };

const COMMAND_TIMEOUT_MS = 2_000;
const CONNECT_TIMEOUT_MS = 5_000;
const MAX_RECONNECT_DELAY_MS = 5_000;

/** A client that connects on its first command and keeps reconnecting with a capped back-off. */
export function createRedis(url: string, logger: Logger): Redis {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: CONNECT_TIMEOUT_MS,
    commandTimeout: COMMAND_TIMEOUT_MS,
    // One retry after a reconnect, then the command rejects instead of waiting in the offline queue for ever.
    maxRetriesPerRequest: 1,
    retryStrategy: (attempt) => Math.min(100 * 2 ** Math.min(attempt, 6), MAX_RECONNECT_DELAY_MS),
  });
  let healthy = true;
  // ioredis emits an error on every failed reconnect; log the first of a run and the recovery, not each retry.
  redis.on("error", (err: Error) => {
    if (healthy) logger.warn({ err }, "redis unavailable; reconnecting");
    healthy = false;
  });
  redis.on("ready", () => {
    if (!healthy) logger.info("redis reachable again");
    healthy = true;
  });
  return redis;
}
