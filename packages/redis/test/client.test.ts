import { describe, expect, it } from "@jest/globals";
import { createLogger } from "@sca/log";
import { testServers } from "@sca/testkit";
import { createRedis } from "../src/index.ts";

const logger = createLogger("redis-test", "ERROR");

describe("createRedis", () => {
  it("connects on the first command, not before", async () => {
    const redis = createRedis(testServers().redisUrl, logger);
    expect(redis.status).toBe("wait");
    expect(await redis.ping()).toBe("PONG");
    expect(redis.status).toBe("ready");
    await redis.quit();
  });

  it("fails a command quickly while Redis is unreachable instead of queueing it", async () => {
    // Port 1 on loopback refuses connections.
    const redis = createRedis("redis://127.0.0.1:1", logger);
    const started = Date.now();
    await expect(redis.ping()).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(5_000);
    redis.disconnect();
    // ioredis leaves a 2 s timer waiting for the close of a socket that never opened; let it fire.
    await new Promise((r) => setTimeout(r, 2_100));
  });
});
