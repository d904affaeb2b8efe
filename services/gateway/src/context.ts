// What route files and edge middleware are given: configuration, logger, Redis, the rate-limit factory, the
// metrics and the service clients. Route files take it as their one argument: `fooRoutes(ctx): Route[]`.
import type { Logger } from "@sca/log";
import type { FixedWindowLimiter, Redis } from "@sca/redis";
import { serviceUrlOf, type GatewayConfig } from "./config.ts";
import type { ReadinessTarget } from "./health/readiness.ts";
import { redisAccessAnswers } from "./http/access-answers.ts";
import { redisApiKeyAnswers } from "./http/api-key-answers.ts";
import { createAuthenticator, type Authenticator } from "./http/authenticate.ts";
import { HttpMetrics } from "./http/http-metrics.ts";
import { createRateLimit, type RateLimit } from "./http/rate-limit.ts";
import { createServiceClients, type ServiceClients } from "./service-clients.ts";

export interface GatewayContext {
  config: GatewayConfig;
  logger: Logger;
  redis: Redis;
  /** Route middleware: `ctx.rateLimit({ name, limit, windowSeconds, key, retryAfter })`. */
  rateLimit: RateLimit;
  metrics: HttpMetrics;
  /** The domain services /health/ready asks. */
  readinessTargets: readonly ReadinessTarget[];
  /** Clients of the domain services' Connect services: `ctx.clients.identity.directory` (src/service-clients.ts). */
  clients: ServiceClients;
  /** Route `auth`: `auth: ctx.auth.route("caller")` or `ctx.auth.route("super_admin")`. */
  auth: Authenticator;
}

export interface GatewayDependencies {
  config: GatewayConfig;
  logger: Logger;
  redis: Redis;
  limiter: FixedWindowLimiter;
  readinessTargets: readonly ReadinessTarget[];
  /** Redis namespace of the API-key answers identity caches. */
  apiKeyAnswerNamespace: string;
  /** Redis namespace of the access-token answers identity caches. */
  accessAnswerNamespace: string;
}

/** The context of the gateway's routes, with clients of the domain services at their configured addresses. */
export function createGatewayContext(deps: GatewayDependencies): GatewayContext {
  const clients = createServiceClients((service) => serviceUrlOf(deps.config, service));
  return {
    config: deps.config,
    logger: deps.logger,
    redis: deps.redis,
    rateLimit: createRateLimit(deps.limiter, deps.logger),
    metrics: new HttpMetrics(),
    readinessTargets: deps.readinessTargets,
    clients,
    auth: createAuthenticator({
      access: clients.identity.access,
      answers: redisApiKeyAnswers(deps.redis, deps.config.SECRET_KEY, deps.logger, deps.apiKeyAnswerNamespace),
      accessAnswers: redisAccessAnswers(deps.redis, deps.config.SECRET_KEY, deps.logger, deps.accessAnswerNamespace),
      secretKey: deps.config.SECRET_KEY,
    }),
  };
}
