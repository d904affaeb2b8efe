// Starts a real gateway for a test file by the path production takes (src/service.ts): express + ws on an ephemeral
// port, real Redis, configuration parsed by the same keys, plus the test's own routes and WebSocket endpoints.
import { Writable } from "node:stream";
import { expect } from "@jest/globals";
import { serviceAddressKey } from "@sca/config";
import { createLogger, currentRequestId, type Logger } from "@sca/log";
import type { Redis } from "@sca/redis";
import { SERVICES, type ServiceName } from "@sca/runtime/services";
import { TEST_KAFKA_FETCH_MAX_WAIT_MS, TEST_SECRET, testServers, uniqueName } from "@sca/testkit";
import { pino } from "pino";
import type { Route } from "../src/api/route.ts";
import type { GatewayContext } from "../src/context.ts";
import { domainServiceTargets, type ReadinessTarget } from "../src/health/readiness.ts";
import type { GatewayServer } from "../src/server.ts";
import { startGateway, type GatewaySeams } from "../src/service.ts";
import type { ScanProgressHub } from "../src/ws/scan-progress.ts";
import type { WebSocketEndpoint } from "../src/ws/websocket-upgrade.ts";

export const ALLOWED_ORIGIN = "http://portal.example.test";

export interface TestGateway {
  /** http://127.0.0.1:<port> */
  origin: string;
  /** http://127.0.0.1:<port> of the metrics server, with METRICS_ENABLED and METRICS_PORT. */
  metricsUrl: string | undefined;
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
  /** What /health/ready asks; absent: the test's own services (`identity` and `services`), or none. */
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
  // Every service but those of the test's own is at a closed port: a portal running on this machine is never reached.
  const urlOf = (service: ServiceName) =>
    (service === "identity" ? opts.identity?.url : undefined) ?? opts.services?.[service] ?? "http://127.0.0.1:9";
  const serviceAddresses = Object.fromEntries(
    (Object.keys(SERVICES) as ServiceName[]).map((service) => [serviceAddressKey(service), urlOf(service)]),
  );
  const ownServices = [
    ...(opts.identity ? ["identity" as const] : []),
    ...(Object.keys(opts.services ?? {}) as ServiceName[]),
  ];
  const seams: Partial<GatewaySeams> = { rateLimitNamespace: `${uniqueName("gw_rl")}:` };
  if (opts.identity) seams.apiKeyAnswerNamespace = opts.identity.answerNamespace;
  if (opts.identity?.accessAnswerNamespace) seams.accessAnswerNamespace = opts.identity.accessAnswerNamespace;
  if (opts.scanProgress) seams.webSocketNamespace = opts.scanProgress.namespace;
  if (opts.scanProgress?.keepaliveMs !== undefined) seams.webSocketKeepaliveMs = opts.scanProgress.keepaliveMs;
  const gateway = await startGateway({
    env: {
      CORS_ALLOWED_ORIGINS: ALLOWED_ORIGIN,
      DOMAIN: "portal.example.test",
      SECRET_KEY: TEST_SECRET,
      REDIS_URL: opts.redisUrl ?? testServers().redisUrl,
      KAFKA_BROKERS: testServers().kafkaBrokers.join(","),
      KAFKA_TOPIC_PREFIX: opts.scanProgress?.topicPrefix ?? "",
      KAFKA_FETCH_MAX_WAIT_MS: TEST_KAFKA_FETCH_MAX_WAIT_MS,
      ...serviceAddresses,
      ...opts.env,
    },
    logger: opts.logger ?? createLogger("gateway-test", process.env.LOG_LEVEL ?? "ERROR"),
    listen: { port: 0, host: "127.0.0.1" },
    seams,
    readinessTargets: opts.readinessTargets ?? domainServiceTargets(urlOf, ownServices),
    routes: opts.routes,
    webSocketEndpoints: opts.webSocketEndpoints,
    scanProgress: opts.scanProgress !== undefined,
  });
  return {
    origin: gateway.url,
    metricsUrl: gateway.metricsUrl,
    ctx: gateway.ctx,
    server: gateway.server,
    redis: gateway.redis,
    scanProgress: gateway.scanProgress,
    close: () => gateway.close(1_000),
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
