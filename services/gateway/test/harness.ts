// Starts a real gateway (express + ws on an ephemeral port, real Redis) for a test file, with configuration
// parsed by the same keys as production and optional test-only routes.
import { Writable } from "node:stream";
import { expect } from "@jest/globals";
import { loadConfig } from "@sca/config";
import { createLogger, currentRequestId, type Logger } from "@sca/log";
import { createRedis, FixedWindowLimiter, type Redis } from "@sca/redis";
import { createKafka, type BroadcastConsumer } from "@sca/kafka";
import type { ServiceName } from "@sca/runtime/services";
import { TEST_KAFKA_FETCH_MAX_WAIT_MS, TEST_SECRET, testServers, uniqueName } from "@sca/testkit";
import { pino } from "pino";
import type { Route } from "../src/api/route.ts";
import { gatewayKeys } from "../src/config.ts";
import { createGatewayContext, type GatewayContext } from "../src/context.ts";
import type { ReadinessTarget } from "../src/health/readiness.ts";
import { apiRoutes } from "../src/routes/index.ts";
import { startGateway, type GatewayServer } from "../src/server.ts";
import { createServiceClients } from "../src/service-clients.ts";
import { startScanEventsFeed } from "../src/ws/scan-events-feed.ts";
import { startScanProgressHub, type ScanProgressHub } from "../src/ws/scan-progress.ts";
import type { WebSocketEndpoint } from "../src/ws/websocket-upgrade.ts";

export const ALLOWED_ORIGIN = "http://portal.example.test";

export interface TestGateway {
  /** http://127.0.0.1:<port> */
  origin: string;
  ctx: GatewayContext;
  server: GatewayServer;
  redis: Redis;
  /** With `scanProgress`: the /ws/scans/{scan_id} hub. */
  scanProgress?: ScanProgressHub;
  close(): Promise<void>;
}

export interface TestGatewayOptions {
  env?: Record<string, string>;
  routes?: (ctx: GatewayContext) => Route[];
  webSocketEndpoints?: WebSocketEndpoint[];
  readinessTargets?: ReadinessTarget[];
  logger?: Logger;
  redisUrl?: string;
  /** An identity of the test's own (http://127.0.0.1:<port>) and the Redis namespace of its cached API-key answers. */
  identity?: { url: string; answerNamespace: string; accessAnswerNamespace?: string };
  /** Other domain services of the test's own, by name (http://127.0.0.1:<port>). */
  services?: Partial<Record<ServiceName, string>>;
  /**
   * Serves /ws/scans/{scan_id} fed from the scan events under `topicPrefix`, its caps in Redis under `namespace`
   * (gateways given the same namespace count together, as a deployment's instances do).
   */
  scanProgress?: { namespace: string; topicPrefix: string; keepaliveMs?: number };
}

export async function startTestGateway(opts: TestGatewayOptions = {}): Promise<TestGateway> {
  const config = loadConfig(gatewayKeys, {
    CORS_ALLOWED_ORIGINS: ALLOWED_ORIGIN,
    DOMAIN: "portal.example.test",
    SECRET_KEY: TEST_SECRET,
    REDIS_URL: opts.redisUrl ?? testServers().redisUrl,
    KAFKA_BROKERS: testServers().kafkaBrokers.join(","),
    KAFKA_TOPIC_PREFIX: opts.scanProgress?.topicPrefix ?? "",
    KAFKA_FETCH_MAX_WAIT_MS: TEST_KAFKA_FETCH_MAX_WAIT_MS,
    ...opts.env,
  });
  const logger = opts.logger ?? createLogger("gateway-test", process.env.LOG_LEVEL ?? "ERROR");
  const redis = createRedis(config.REDIS_URL, logger);
  const ctx = createGatewayContext({
    config,
    logger,
    redis,
    limiter: new FixedWindowLimiter(redis, `${uniqueName("gw_rl")}:`),
    readinessTargets: opts.readinessTargets ?? [],
    // Every service but those of the test's own is at a closed port: a portal running on this machine is never reached.
    clients: createServiceClients((service) =>
      service === "identity" && opts.identity ? opts.identity.url : (opts.services?.[service] ?? "http://127.0.0.1:9"),
    ),
    apiKeyAnswerNamespace: opts.identity?.answerNamespace,
    accessAnswerNamespace: opts.identity?.accessAnswerNamespace,
  });
  let scanProgress: ScanProgressHub | undefined;
  let scanEvents: BroadcastConsumer | undefined;
  if (opts.scanProgress) {
    const { namespace, keepaliveMs } = opts.scanProgress;
    scanProgress = await startScanProgressHub({ ctx, namespace, keepaliveMs });
    const kafka = createKafka({
      brokers: config.KAFKA_BROKERS,
      clientId: "gateway-test",
      logger,
      topicPrefix: config.KAFKA_TOPIC_PREFIX,
      fetchMaxWaitMs: config.KAFKA_FETCH_MAX_WAIT_MS,
    });
    scanEvents = await startScanEventsFeed(kafka, logger, scanProgress.publish);
  }
  const server = await startGateway(ctx, {
    port: 0,
    host: "127.0.0.1",
    routes: [...apiRoutes(ctx), ...(opts.routes?.(ctx) ?? [])],
    webSocketEndpoints: [...(opts.webSocketEndpoints ?? []), ...(scanProgress ? [scanProgress.endpoint] : [])],
  });
  return {
    origin: `http://127.0.0.1:${server.port}`,
    ctx,
    server,
    redis,
    scanProgress,
    close: async () => {
      await server.close(1_000);
      await scanEvents?.stop();
      await scanProgress?.close();
      redis.disconnect();
    },
  };
}

/** A logger that keeps its JSON lines in memory, with the request id mixed in as @sca/log does. */
export function capturingLogger(): { logger: Logger; lines: () => Record<string, unknown>[] } {
  const raw: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      raw.push(...chunk.toString("utf8").split("\n").filter(Boolean));
      done();
    },
  });
  const logger = pino(
    {
      level: "info",
      mixin: () => {
        const requestId = currentRequestId();
        return requestId ? { request_id: requestId } : {};
      },
    },
    sink,
  );
  return { logger, lines: () => raw.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

export const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export async function problemOf(res: Response): Promise<Record<string, unknown>> {
  expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  return (await res.json()) as Record<string, unknown>;
}
