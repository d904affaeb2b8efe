// Wiring of the gateway: configuration, logger, Redis, service clients, the HTTP server, graceful shutdown.
import { loadConfigOrExit } from "@sca/config";
import { createKafka } from "@sca/kafka";
import { createLogger } from "@sca/log";
import { createRedis, FixedWindowLimiter } from "@sca/redis";
import { onShutdown } from "@sca/rpc";
import { gatewayKeys } from "./config.ts";
import { createGatewayContext } from "./context.ts";
import { domainServiceTargets } from "./health/readiness.ts";
import { apiRoutes } from "./routes/index.ts";
import { startGateway } from "./server.ts";
import { startScanEventsFeed } from "./ws/scan-events-feed.ts";
import { startScanProgressHub } from "./ws/scan-progress.ts";

const config = loadConfigOrExit(gatewayKeys);
const logger = createLogger("gateway", config.LOG_LEVEL);
const redis = createRedis(config.REDIS_URL, logger);
const ctx = createGatewayContext({
  config,
  logger,
  redis,
  limiter: new FixedWindowLimiter(redis),
  readinessTargets: domainServiceTargets(),
});
const kafka = createKafka({
  brokers: config.KAFKA_BROKERS,
  clientId: "gateway",
  logger,
  topicPrefix: config.KAFKA_TOPIC_PREFIX,
  fetchMaxWaitMs: config.KAFKA_FETCH_MAX_WAIT_MS,
});
const scanProgress = await startScanProgressHub({ ctx });
const scanEvents = await startScanEventsFeed(kafka, logger, scanProgress.publish);
const gateway = await startGateway(ctx, {
  port: config.HTTP_PORT,
  routes: apiRoutes(ctx),
  webSocketEndpoints: [scanProgress.endpoint],
});
onShutdown(logger, [
  { name: "http server", close: () => gateway.close() },
  { name: "scan events", close: () => scanEvents.stop() },
  { name: "scan websockets", close: () => scanProgress.close() },
  { name: "redis", close: () => redis.quit() },
]);
