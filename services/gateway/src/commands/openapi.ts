// Prints the gateway's OpenAPI document (what /openapi.json serves) without starting it, for the generated API
// client (packages/api-client). The routes are built over a context whose clients and Redis are never used: building
// a route calls nothing, and the Redis client connects lazily.
import { loadConfig } from "@sca/config";
import { createLogger } from "@sca/log";
import { createRedis, FixedWindowLimiter } from "@sca/redis";
import { gatewayKeys, serviceUrlOf } from "../config.ts";
import { createGatewayContext } from "../context.ts";
import { domainServiceTargets } from "../health/readiness.ts";
import { ACCESS_ANSWER_NAMESPACE } from "../http/access-answers.ts";
import { API_KEY_ANSWER_NAMESPACE } from "../http/api-key-answers.ts";
import { buildOpenApiDocument } from "../openapi/document.ts";
import { apiRoutes } from "../routes/index.ts";

// The document does not depend on the secret; one is needed only to build the context.
const config = loadConfig(gatewayKeys, { ...process.env, SECRET_KEY: "openapi-document-only" });
const logger = createLogger("gateway", "ERROR");
const redis = createRedis(config.REDIS_URL, logger);
const ctx = createGatewayContext({
  config,
  logger,
  redis,
  limiter: new FixedWindowLimiter(redis, "unused:"),
  readinessTargets: domainServiceTargets((service) => serviceUrlOf(config, service)),
  apiKeyAnswerNamespace: API_KEY_ANSWER_NAMESPACE,
  accessAnswerNamespace: ACCESS_ANSWER_NAMESPACE,
});
process.stdout.write(`${JSON.stringify(buildOpenApiDocument(apiRoutes(ctx)), null, 2)}\n`);
redis.disconnect();
