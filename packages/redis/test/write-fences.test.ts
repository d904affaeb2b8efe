// The write fences' contract (ADR 12) against a real Redis: a version read with no fence standing changes with every
// fenced write, is withheld while a fence stands, and never comes back after the keys are lost.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createLogger } from "@sca/log";
import { testServers, uniqueName } from "@sca/testkit";
import { createRedis, writeFences, type Redis, type WriteFences } from "../src/index.ts";

let redis: Redis;
let prefix: string;
let fences: WriteFences;

beforeAll(() => {
  redis = createRedis(testServers().redisUrl, createLogger("redis-test", "ERROR"));
  prefix = `${uniqueName("fences")}:`;
  fences = writeFences(redis, prefix);
});

afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
});

describe("write fences", () => {
  it("withholds the version from the fence to the lift, and answers a new one after", async () => {
    const before = await fences.current("p1");
    expect(before).toMatch(/^\d+:\d+$/);
    expect(await fences.current("p1")).toBe(before);
    const fence = await fences.fence(["p1", "p2"]);
    expect(await fences.current("p1")).toBeNull();
    expect(await fences.current("p2")).toBeNull();
    expect(await fences.current("p3")).not.toBeNull();
    await fence.lift();
    const after = await fences.current("p1");
    expect(after).not.toBeNull();
    expect(after).not.toBe(before);
    expect(await fences.current("p1")).toBe(after);
  });

  it("keeps the version withheld while any of two writers' fences stands", async () => {
    const first = await fences.fence(["q"]);
    const second = await fences.fence(["q"]);
    await first.lift();
    expect(await fences.current("q")).toBeNull();
    await second.lift();
    expect(await fences.current("q")).not.toBeNull();
  });

  it("lets a fence whose writer died lift itself at its deadline", async () => {
    await fences.fence(["dead"]);
    expect(await fences.current("dead")).toBeNull();
    const fenceKey = (await redis.keys(`${prefix}{dead}:fence`))[0]!;
    const [member] = await redis.zrange(fenceKey, "0", "0");
    await redis.zadd(fenceKey, Date.now() - 1, member!); // as if its deadline had passed
    expect(await fences.current("dead")).not.toBeNull();
  });

  it("never answers an earlier version after the keys are lost, and raises every key at once per cause", async () => {
    const seen = await fences.current("lost");
    await redis.del(...(await redis.keys(`${prefix}*`)));
    const fresh = await fences.current("lost");
    expect(fresh).not.toBe(seen);
    const other = await fences.current("other");
    await fences.raiseAll("migration 1");
    const raised = await fences.current("lost");
    expect(raised).not.toBe(fresh);
    expect(await fences.current("other")).not.toBe(other);
    // Once per cause: a second start at the same schema head changes nothing, a new cause raises them again.
    await fences.raiseAll("migration 1");
    expect(await fences.current("lost")).toBe(raised);
    await fences.raiseAll("restore 7");
    expect(await fences.current("lost")).not.toBe(raised);
  });
});
