// The WebSocket caps, counted across every gateway instance in Redis: WEBSOCKET_MAX_CONNECTIONS_GLOBAL (a new
// connection past it is refused, nobody evicted) and WEBSOCKET_MAX_CONNECTIONS_PER_USER (the user's oldest sockets
// are evicted, wherever they are). Each live socket is a member of the global set, scored by when its instance last
// vouched for it; an instance that dies stops vouching and its sockets fall out after STALE_MS. Evictions travel on a
// pub/sub channel, so the instance holding the evicted socket closes it.
import { randomUUID } from "node:crypto";
import type { Logger } from "@sca/log";
import type { Redis } from "@sca/redis";

/** How often an instance vouches for its sockets; a socket not vouched for in STALE_MS no longer counts. */
export const REFRESH_MS = 15_000;
const STALE_MS = 3 * REFRESH_MS;

// KEYS: global set, user set. ARGV: connection id, now, stale-before, global cap, user cap.
// Answers {0} when the global cap is reached, else {1, evicted ids...}.
const ADMIT = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[3])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then return {0} end
for _, m in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do
  if not redis.call('ZSCORE', KEYS[1], m) then redis.call('ZREM', KEYS[2], m) end
end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
local answer = {1}
local over = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[5])
if over > 0 then
  for _, m in ipairs(redis.call('ZRANGE', KEYS[2], 0, over - 1)) do
    redis.call('ZREM', KEYS[2], m)
    redis.call('ZREM', KEYS[1], m)
    table.insert(answer, m)
  end
end
return answer
`;

export interface CapsOptions {
  redis: Redis;
  /** Key prefix shared by the instances of one deployment, e.g. "sca:ws:". */
  namespace: string;
  globalCap: number;
  perUserCap: number;
  logger: Logger;
  /** Closes a socket of this instance another admission evicted. */
  evict(connectionId: string): void;
}

export type Admission = { admitted: false } | { admitted: true; connectionId: string };

export interface ConnectionCaps {
  /** Counts a new socket of the user in, evicting the user's oldest past the per-user cap. */
  admit(userId: string): Promise<Admission>;
  /** Counts a socket out (closed, for whatever reason). */
  release(connectionId: string, userId: string): Promise<void>;
  close(): Promise<void>;
}

export async function startConnectionCaps(opts: CapsOptions): Promise<ConnectionCaps> {
  const { redis, namespace } = opts;
  const globalKey = `${namespace}connections`;
  const userKey = (userId: string) => `${namespace}user:${userId}`;
  const channel = `${namespace}evict`;
  const mine = new Map<string, string>(); // connection id -> user id
  const subscriber = redis.duplicate();
  await subscriber.subscribe(channel);
  subscriber.on("message", (_channel: string, connectionId: string) => {
    if (mine.has(connectionId)) opts.evict(connectionId);
  });
  const refresh = setInterval(() => {
    if (mine.size === 0) return;
    const now = Date.now();
    const args = [...mine.keys()].flatMap((id) => [now, id]);
    redis
      .zadd(globalKey, "XX", ...args)
      .catch((err: unknown) => opts.logger.warn({ err }, "could not vouch for sockets"));
  }, REFRESH_MS);
  refresh.unref();

  return {
    async admit(userId) {
      const connectionId = randomUUID();
      const now = Date.now();
      const answer = (await redis.eval(
        ADMIT,
        2,
        globalKey,
        userKey(userId),
        connectionId,
        now,
        now - STALE_MS,
        opts.globalCap,
        opts.perUserCap,
      )) as (number | string)[];
      if (answer[0] === 0) return { admitted: false };
      mine.set(connectionId, userId);
      for (const evicted of answer.slice(1) as string[]) {
        if (mine.has(evicted)) opts.evict(evicted);
        else await redis.publish(channel, evicted);
      }
      return { admitted: true, connectionId };
    },
    async release(connectionId, userId) {
      if (!mine.delete(connectionId)) return;
      await redis.multi().zrem(globalKey, connectionId).zrem(userKey(userId), connectionId).exec();
    },
    async close() {
      clearInterval(refresh);
      const held = [...mine.entries()];
      mine.clear();
      if (held.length > 0) {
        const tx = redis.multi().zrem(globalKey, ...held.map(([id]) => id));
        for (const [id, user] of held) tx.zrem(userKey(user), id);
        await tx.exec();
      }
      subscriber.disconnect();
    },
  };
}
