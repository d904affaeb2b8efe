export { createRedis } from "./client.ts";
export type { Redis } from "./client.ts";
export { FixedWindowLimiter, assertRateLimitRule } from "./fixed-window-limiter.ts";
export type { RateLimitRule, RateLimitDecision } from "./fixed-window-limiter.ts";
export { PROJECT_WRITE_FENCES, writeFences } from "./write-fences.ts";
export type { Fence, WriteFences } from "./write-fences.ts";
