// What route files and edge middleware are given: configuration, logger, Redis, the rate-limit factory, the
// metrics and the service clients. Route files take it as their one argument: `fooRoutes(ctx): Route[]`.
import type { Logger } from "@sca/log";
import type { FixedWindowLimiter, Redis } from "@sca/redis";
import type { GatewayConfig } from "./config.ts";
import type { ReadinessTarget } from "./health/readiness.ts";
import { HttpMetrics } from "./http/http-metrics.ts";
import { createRateLimit, type RateLimit } from "./http/rate-limit.ts";

export interface GatewayContext {
  config: GatewayConfig;
  logger: Logger;
  redis: Redis;
  /** Route middleware: `ctx.rateLimit({ name, limit, windowSeconds, key, retryAfter })`. */
  rateLimit: RateLimit;
  metrics: HttpMetrics;
  /** The domain services /health/ready asks. */
  readinessTargets: readonly ReadinessTarget[];
}

export interface GatewayDependencies {
  config: GatewayConfig;
  logger: Logger;
  redis: Redis;
  limiter: FixedWindowLimiter;
  readinessTargets: readonly ReadinessTarget[];
}

export function createGatewayContext(deps: GatewayDependencies): GatewayContext {
  return {
    config: deps.config,
    logger: deps.logger,
    redis: deps.redis,
    rateLimit: createRateLimit(deps.limiter, deps.logger),
    metrics: new HttpMetrics(),
    readinessTargets: deps.readinessTargets,
  };
}
