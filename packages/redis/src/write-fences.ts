// Versions of a service's rows that another service may keep copies of reads under (ADR 12). The owner of the rows
// raises a key's version and sets a fence before a transaction that changed them commits, then raises the version
// again and lifts the fence after; a reader trusts a version only while no fence of the key stands. So a copy kept
// under a version read with no fence standing never outlives a commit: the commit came after a fence was set (and the
// version raised), and the version is raised again before the fence is lifted. A fence whose owner died lifts itself
// at its deadline. A version missing (a flush, a restart without persistence) starts from Redis's clock in
// microseconds, never a value seen before; the generation, raised when rows change without fences (a restore, a
// migration), is part of every version.
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";

/** How long a fence stands at most: longer than any commit takes after its fence is set. */
const FENCE_MS = 5 * 60_000;

// Redis's clock: both ends agree on it whatever the hosts' clocks say.
const CLOCK = `
local t = redis.call('TIME')
local nowMs = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local fresh = t[1] .. string.format('%06d', tonumber(t[2]))
`;

// KEYS: version, fence of each key in turn. ARGV: fence token, fence ms (0: lift the fence).
const RAISE = `${CLOCK}
for i = 1, #KEYS, 2 do
  if redis.call('EXISTS', KEYS[i]) == 0 then redis.call('SET', KEYS[i], fresh) end
  redis.call('INCR', KEYS[i])
  if tonumber(ARGV[2]) > 0 then
    redis.call('ZADD', KEYS[i + 1], nowMs + tonumber(ARGV[2]), ARGV[1])
  else
    redis.call('ZREM', KEYS[i + 1], ARGV[1])
  end
end
return 1
`;

// KEYS: generation, the cause it was last raised for. ARGV: the cause.
const RAISE_ALL = `${CLOCK}
if redis.call('GET', KEYS[2]) == ARGV[1] then return 0 end
if redis.call('EXISTS', KEYS[1]) == 0 then redis.call('SET', KEYS[1], fresh) end
redis.call('INCR', KEYS[1])
redis.call('SET', KEYS[2], ARGV[1])
return 1
`;

// KEYS: generation, version, fence. Answers the version, or '' while a fence stands.
const CURRENT = `${CLOCK}
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', nowMs)
if redis.call('ZCARD', KEYS[3]) > 0 then return '' end
local g = redis.call('GET', KEYS[1])
if not g then g = fresh; redis.call('SET', KEYS[1], g) end
local v = redis.call('GET', KEYS[2])
if not v then v = fresh; redis.call('SET', KEYS[2], v) end
return g .. ':' .. v
`;

/** The fences of projects' rows: projects writes them, the gateway reads them. */
export const PROJECT_WRITE_FENCES = "sca:project-writes:";

/** A fence set before a commit, lifted after it (or after the rollback). */
export interface Fence {
  lift(): Promise<void>;
}

export interface WriteFences {
  /** Raises the keys' versions and fences them: call before the commit of a transaction that changed them. */
  fence(keys: readonly string[]): Promise<Fence>;
  /** The key's version, or null while a write to it is between its fence and its lift. */
  current(key: string): Promise<string | null>;
  /**
   * Raises every version at once, once per `cause` (the last cause is remembered): rows changed without fences, by a
   * migration (the cause: the schema's head) or a restore (the cause: the restore's own id).
   */
  raiseAll(cause: string): Promise<void>;
}

/** `namespace` names the rows, e.g. "sca:projects:" (the writer's and the readers' must be the same). */
export function writeFences(redis: Redis, namespace: string): WriteFences {
  const generation = `${namespace}generation`;
  const version = (key: string) => `${namespace}{${key}}:version`;
  const fenceOf = (key: string) => `${namespace}{${key}}:fence`;
  const keysOf = (keys: readonly string[]) => keys.flatMap((k) => [version(k), fenceOf(k)]);
  return {
    async fence(keys) {
      const token = randomUUID();
      const redisKeys = keysOf(keys);
      await redis.eval(RAISE, redisKeys.length, ...redisKeys, token, FENCE_MS);
      return { lift: async () => void (await redis.eval(RAISE, redisKeys.length, ...redisKeys, token, 0)) };
    },
    async current(key) {
      const answer = (await redis.eval(CURRENT, 3, generation, version(key), fenceOf(key))) as string;
      return answer === "" ? null : answer;
    },
    async raiseAll(cause) {
      await redis.eval(RAISE_ALL, 2, generation, `${generation}:cause`, cause);
    },
  };
}
