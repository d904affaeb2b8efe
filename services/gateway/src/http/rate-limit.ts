// Fixed-window rate limits as route middleware, counted in Redis so every gateway replica shares the buckets.
//   middleware: [ctx.rateLimit({ name: "login", limit: 5, windowSeconds: 60, key: clientAddressOf, retryAfter: 60 })]
// While Redis is unreachable the request proceeds (logged): Redis holds no truth, and losing it must not take
// sign-in down with it.
import type { Request, RequestHandler } from "express";
import type { Logger } from "@sca/log";
import { ProblemError } from "@sca/problem";
import { assertRateLimitRule, type FixedWindowLimiter } from "@sca/redis";
import type { GatewayConfig } from "../config.ts";

export interface RateLimitOptions {
  /** The bucket, e.g. "login"; subjects are counted per bucket. */
  name: string;
  limit: number;
  windowSeconds: number;
  /** Who is counted: the client address or the user id. */
  key: (req: Request) => string;
  /** Retry-After on 429: a fixed number of seconds, or the time left in the window (the default). */
  retryAfter?: number | "window";
}

export type RateLimit = (options: RateLimitOptions) => RequestHandler;

/** The configuration keys that are rates (`5/minute`). */
type RateKey = {
  [K in keyof GatewayConfig]: GatewayConfig[K] extends { limit: number; windowSeconds: number } ? K : never;
}[keyof GatewayConfig];

/** A per-address limit as a route's description states it: "5 per 60 s per client address (KEY)." */
export function perAddressLimitText(config: GatewayConfig, key: RateKey): string {
  const rule = config[key];
  return `${rule.limit} per ${rule.windowSeconds} s per client address (${key}).`;
}

// The limits made here, so the OpenAPI document can declare 429 on every route that carries one.
const rateLimits = new WeakSet<RequestHandler>();

/** True for a middleware made by a RateLimit. */
export function isRateLimit(handler: RequestHandler): boolean {
  return rateLimits.has(handler);
}

export function createRateLimit(limiter: FixedWindowLimiter, logger: Logger): RateLimit {
  return (options) => {
    assertRateLimitRule(options);
    const limit: RequestHandler = async (req, _res, next) => {
      let decision;
      try {
        decision = await limiter.hit(options.name, options.key(req), options);
      } catch (err) {
        logger.warn({ err, bucket: options.name }, "rate limit not checked: redis unavailable");
        return next();
      }
      if (decision.allowed) return next();
      const retryAfter = typeof options.retryAfter === "number" ? options.retryAfter : decision.resetSeconds;
      next(
        new ProblemError({
          status: 429,
          code: "rate_limited",
          detail: `Too many requests; try again in ${retryAfter} seconds.`,
          headers: { "Retry-After": String(retryAfter) },
        }),
      );
    };
    rateLimits.add(limit);
    return limit;
  };
}
