// A fixed-window counter per (bucket, subject): the first hit opens a window of windowSeconds, each hit
// increments the count, and hits past the limit are refused until the window expires. INCR and the expiry
// run in one Lua script so concurrent gateways never leave a counter without a TTL.
import type { Redis } from "ioredis";

export interface RateLimitRule {
  limit: number;
  windowSeconds: number;
}

export interface RateLimitDecision {
  allowed: boolean;
  /** Hits counted in the current window, this one included. */
  count: number;
  limit: number;
  remaining: number;
  /** Whole seconds until the window closes (at least 1). */
  resetSeconds: number;
}

// Returns the count and the remaining lifetime in ms. A key found without a TTL (written by something else,
// or an expiry lost in a failover) gets one, so a subject is never locked out for ever.
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if count == 1 or ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}
`;

/** Throws unless limit and windowSeconds are whole numbers of at least 1 (call it where rules are declared). */
export function assertRateLimitRule(rule: RateLimitRule): void {
  if (!Number.isInteger(rule.limit) || rule.limit < 1)
    throw new RangeError("limit must be a whole number of at least 1");
  if (!Number.isInteger(rule.windowSeconds) || rule.windowSeconds < 1)
    throw new RangeError("windowSeconds must be a whole number of at least 1");
}

export class FixedWindowLimiter {
  private readonly redis: Redis;
  private readonly prefix: string;

  /** `prefix` namespaces the keys (`<prefix><bucket>:<subject>`); tests pass a unique one. */
  constructor(redis: Redis, prefix: string) {
    this.redis = redis;
    this.prefix = prefix;
  }

  /** Counts one hit of `subject` (an address, a user id) against `bucket` and says whether it may proceed. */
  async hit(bucket: string, subject: string, rule: RateLimitRule): Promise<RateLimitDecision> {
    assertRateLimitRule(rule);
    const [count, ttlMs] = (await this.redis.eval(
      HIT_SCRIPT,
      1,
      this.key(bucket, subject),
      rule.windowSeconds * 1000,
    )) as [number, number];
    return {
      allowed: count <= rule.limit,
      count,
      limit: rule.limit,
      remaining: Math.max(0, rule.limit - count),
      resetSeconds: Math.max(1, Math.ceil(ttlMs / 1000)),
    };
  }

  /** Forgets the window of `subject` (e.g. after a successful sign-in clears a failure count). */
  async reset(bucket: string, subject: string): Promise<void> {
    await this.redis.del(this.key(bucket, subject));
  }

  private key(bucket: string, subject: string): string {
    return `${this.prefix}${bucket}:${subject}`;
  }
}
