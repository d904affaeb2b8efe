// The gateway: what it is, for main.ts to run and tests and benches to start. It owns no schema and serves REST and
// WebSockets rather than Connect, so it is not a runtime definition; it is built the same way from its keys
// (config.ts): Redis, the context its routes get (the domain services' clients at their configured addresses,
// authentication, rate limits), the API's routes, the scan-progress WebSocket fed by the scan events, and
// readiness of the domain services, behind one HTTP server. close() drains and closes them in order.
import { loadConfig } from "@sca/config";
import { createKafka, measureQueueLag } from "@sca/kafka";
import { createLogger, type Logger } from "@sca/log";
import { createRedis, FixedWindowLimiter, type Redis } from "@sca/redis";
import { closeInOrder, type Closer } from "@sca/runtime/closers";
import { startMetricsServer } from "@sca/runtime/metrics";
import { startTracing } from "@sca/runtime/tracing";
import type { Route } from "./api/route.ts";
import { gatewayKeys, serviceUrlOf } from "./config.ts";
import { createGatewayContext, type GatewayContext } from "./context.ts";
import { domainServiceTargets, type ReadinessTarget } from "./health/readiness.ts";
import { ACCESS_ANSWER_NAMESPACE } from "./http/access-answers.ts";
import { API_KEY_ANSWER_NAMESPACE } from "./http/api-key-answers.ts";
import { registerQueueBacklogMetrics } from "./http/queue-backlog-metrics.ts";
import { apiRoutes } from "./routes/index.ts";
import { startGatewayServer, type GatewayServer } from "./server.ts";
import { startScanEventsFeed } from "./ws/scan-events-feed.ts";
import { DEFAULT_KEEPALIVE_MS, startScanProgressHub, type ScanProgressHub } from "./ws/scan-progress.ts";
import type { WebSocketEndpoint } from "./ws/websocket-upgrade.ts";

/**
 * What a test may replace, with the production values: names the gateway shares with other processes in Redis
 * (with its other instances, with identity) and the keepalive period of the scan WebSockets.
 */
export interface GatewaySeams {
  /** Key prefix of the rate-limit buckets; a deployment's instances count together under it. */
  rateLimitNamespace: string;
  /** Where identity caches its API-key answers. */
  apiKeyAnswerNamespace: string;
  /** Where identity caches its access-token answers. */
  accessAnswerNamespace: string;
  /** Key prefix of the WebSocket connection caps; a deployment's instances count together under it. */
  webSocketNamespace: string;
  webSocketKeepaliveMs: number;
}

const seams: GatewaySeams = {
  rateLimitNamespace: "sca:ratelimit:",
  apiKeyAnswerNamespace: API_KEY_ANSWER_NAMESPACE,
  accessAnswerNamespace: ACCESS_ANSWER_NAMESPACE,
  webSocketNamespace: "sca:ws:",
  webSocketKeepaliveMs: DEFAULT_KEEPALIVE_MS,
};

export interface GatewayOverrides {
  /** Where the configuration comes from instead of the process environment. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Instead of a logger at LOG_LEVEL on stdout. */
  logger?: Logger;
  /** Where the HTTP server listens instead of HTTP_PORT on every address (port 0: any free port). */
  listen?: { port: number; host?: string };
  /** Replaces some of the seams. */
  seams?: Partial<GatewaySeams>;
  /** What /health/ready asks instead of the seven domain services at their configured addresses. */
  readinessTargets?: readonly ReadinessTarget[];
  /** Routes served beside the API's (a test's probes, a benchmark's). */
  routes?: (ctx: GatewayContext) => Route[];
  /** WebSocket endpoints beside the scan-progress one. */
  webSocketEndpoints?: readonly WebSocketEndpoint[];
  /** false: no /ws/scans/{scan_id} and no scan events feed, so no Kafka consumer to join and leave. */
  scanProgress?: boolean;
}

export interface GatewayInstance {
  /** http://<host>:<port> of its HTTP server. */
  url: string;
  /** http://<host>:<port> of its metrics server, when METRICS_PORT gives /metrics a port of its own. */
  metricsUrl: string | undefined;
  ctx: GatewayContext;
  logger: Logger;
  redis: Redis;
  server: GatewayServer;
  /** The /ws/scans/{scan_id} hub, unless started without it. */
  scanProgress: ScanProgressHub | undefined;
  /** Drains the HTTP server (up to graceMs), then stops the scan events, the scan WebSockets and Redis. */
  close(graceMs?: number): Promise<void>;
}

/** Builds and starts a gateway from its keys; close() stops it. A bad key throws a ConfigError naming it. */
export async function startGateway(overrides: GatewayOverrides = {}): Promise<GatewayInstance> {
  const config = loadConfig(gatewayKeys, overrides.env);
  const logger = overrides.logger ?? createLogger("gateway", config.LOG_LEVEL);
  const { rateLimitNamespace, apiKeyAnswerNamespace, accessAnswerNamespace, webSocketNamespace, webSocketKeepaliveMs } =
    { ...seams, ...overrides.seams };
  const redis = createRedis(config.REDIS_URL, logger);
  // Closed last to first: each after what uses it.
  const opened: Closer[] = [{ name: "redis", close: () => redis.quit() }];
  if (config.OTEL_EXPORTER_OTLP_ENDPOINT) {
    // Closed after the HTTP server, so the last requests' spans are flushed too.
    const tracing = startTracing("gateway", config.OTEL_EXPORTER_OTLP_ENDPOINT);
    opened.push({ name: "tracing", close: () => tracing.close() });
  }
  const closeOpened = () => closeInOrder("gateway", [...opened].reverse(), logger);
  try {
    const ctx = createGatewayContext({
      config,
      logger,
      redis,
      limiter: new FixedWindowLimiter(redis, rateLimitNamespace),
      readinessTargets: overrides.readinessTargets ?? domainServiceTargets((service) => serviceUrlOf(config, service)),
      apiKeyAnswerNamespace,
      accessAnswerNamespace,
    });
    const newKafka = () =>
      createKafka({
        brokers: config.KAFKA_BROKERS,
        clientId: "gateway",
        logger,
        topicPrefix: config.KAFKA_TOPIC_PREFIX,
        fetchMaxWaitMs: config.KAFKA_FETCH_MAX_WAIT_MS,
      });
    if (config.METRICS_ENABLED && config.QUEUE_BACKLOG_METRICS_ENABLED) {
      const kafka = newKafka();
      registerQueueBacklogMetrics(ctx.metrics.registry, () => measureQueueLag(kafka), logger);
    }
    let scanProgress: ScanProgressHub | undefined;
    if (overrides.scanProgress !== false) {
      const hub = await startScanProgressHub({ ctx, namespace: webSocketNamespace, keepaliveMs: webSocketKeepaliveMs });
      scanProgress = hub;
      opened.push({ name: "scan websockets", close: () => hub.close() });
      const scanEvents = await startScanEventsFeed(newKafka(), logger, hub.publish);
      opened.push({ name: "scan events", close: () => scanEvents.stop() });
    }
    const listen = overrides.listen ?? { port: config.HTTP_PORT };
    const server = await startGatewayServer(ctx, {
      port: listen.port,
      host: listen.host,
      routes: [...apiRoutes(ctx), ...(overrides.routes?.(ctx) ?? [])],
      webSocketEndpoints: [...(overrides.webSocketEndpoints ?? []), ...(scanProgress ? [scanProgress.endpoint] : [])],
    });
    let graceMs: number | undefined;
    opened.push({ name: "http server", close: () => server.close(graceMs) });
    const host = !listen.host || ["0.0.0.0", "::"].includes(listen.host) ? "127.0.0.1" : listen.host;
    let metricsUrl: string | undefined;
    if (config.METRICS_ENABLED && config.METRICS_PORT >= 0) {
      const metrics = await startMetricsServer({
        config,
        registry: ctx.metrics.registry,
        logger,
        port: config.METRICS_PORT,
        host: listen.host,
      });
      opened.push({ name: "metrics server", close: () => metrics.close() });
      metricsUrl = `http://${host}:${metrics.port}`;
    }
    return {
      url: `http://${host}:${server.port}`,
      metricsUrl,
      ctx,
      logger,
      redis,
      server,
      scanProgress,
      close(grace) {
        graceMs = grace;
        return closeOpened();
      },
    };
  } catch (err) {
    // A start that failed half-way leaves nothing running.
    await closeOpened().catch(() => undefined);
    throw err;
  }
}
