import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createLogger } from "@sca/log";
import { testServers, uniqueName } from "@sca/testkit";
import { createRedis, FixedWindowLimiter, type Redis } from "../src/index.ts";

const logger = createLogger("redis-test", "ERROR");
let redis: Redis;
let prefix: string;
let limiter: FixedWindowLimiter;

beforeAll(() => {
  redis = createRedis(testServers().redisUrl, logger);
  prefix = `${uniqueName("rl")}:`;
  limiter = new FixedWindowLimiter(redis, prefix);
});

afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
});

describe("FixedWindowLimiter", () => {
  it("allows up to the limit in a window, then refuses with the time left", async () => {
    const rule = { limit: 3, windowSeconds: 60 };
    const decisions = [];
    for (let i = 0; i < 5; i++) decisions.push(await limiter.hit("login", "10.0.0.1", rule));
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false, false]);
    expect(decisions.map((d) => d.remaining)).toEqual([2, 1, 0, 0, 0]);
    expect(decisions[4]!.count).toBe(5);
    for (const d of decisions) {
      expect(d.resetSeconds).toBeGreaterThanOrEqual(59);
      expect(d.resetSeconds).toBeLessThanOrEqual(60);
    }
    expect(await redis.pttl(`${prefix}login:10.0.0.1`)).toBeGreaterThan(58_000);
  });

  it("counts buckets and subjects separately", async () => {
    const rule = { limit: 1, windowSeconds: 60 };
    expect((await limiter.hit("a", "s1", rule)).allowed).toBe(true);
    expect((await limiter.hit("a", "s1", rule)).allowed).toBe(false);
    expect((await limiter.hit("a", "s2", rule)).allowed).toBe(true);
    expect((await limiter.hit("b", "s1", rule)).allowed).toBe(true);
  });

  it("opens a new window once the old one expires", async () => {
    const rule = { limit: 1, windowSeconds: 1 };
    expect((await limiter.hit("short", "x", rule)).allowed).toBe(true);
    expect((await limiter.hit("short", "x", rule)).allowed).toBe(false);
    await new Promise((r) => setTimeout(r, 1_100));
    const next = await limiter.hit("short", "x", rule);
    expect(next).toMatchObject({ allowed: true, count: 1 });
  });

  it("is atomic under concurrent hits", async () => {
    const rule = { limit: 10, windowSeconds: 60 };
    const decisions = await Promise.all(Array.from({ length: 50 }, () => limiter.hit("burst", "y", rule)));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
    expect(new Set(decisions.map((d) => d.count)).size).toBe(50);
  });

  it("gives a key that lost its expiry a window again", async () => {
    await redis.set(`${prefix}stuck:z`, "7");
    const d = await limiter.hit("stuck", "z", { limit: 5, windowSeconds: 30 });
    expect(d).toMatchObject({ allowed: false, count: 8 });
    expect(await redis.pttl(`${prefix}stuck:z`)).toBeGreaterThan(28_000);
  });

  it("reset forgets the window", async () => {
    const rule = { limit: 1, windowSeconds: 60 };
    await limiter.hit("reset", "u", rule);
    expect((await limiter.hit("reset", "u", rule)).allowed).toBe(false);
    await limiter.reset("reset", "u");
    expect((await limiter.hit("reset", "u", rule)).allowed).toBe(true);
  });

  it("rejects rules that are not whole positive numbers", async () => {
    await expect(limiter.hit("bad", "v", { limit: 0, windowSeconds: 60 })).rejects.toThrow(RangeError);
    await expect(limiter.hit("bad", "v", { limit: 5, windowSeconds: 0.5 })).rejects.toThrow(RangeError);
  });
});
