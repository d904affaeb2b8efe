// /metrics on a port of its own (METRICS_PORT), for the gateway and every domain service: Prometheus scrapes it
// inside the cluster while the ingress, which routes the gateway's HTTP port only, cannot reach it. Anything but a
// permitted GET /metrics answers 404, as an unknown path does, so its existence is not disclosed.
import { createHash, timingSafeEqual } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "@sca/log";
import { collectDefaultMetrics, Registry } from "prom-client";

export interface MetricsConfig {
  METRICS_ENABLED: boolean;
  METRICS_TOKEN: string;
}

// Hashing first gives equal lengths, so the comparison takes the same time whatever was sent.
function sameSecret(given: string, expected: string): boolean {
  const digest = (s: string) => createHash("sha256").update(s).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** Whether a scrape with this Authorization header may read the metrics (METRICS_TOKEN, when set, as its bearer). */
export function mayScrape(config: MetricsConfig, authorization: string | undefined): boolean {
  const { METRICS_ENABLED, METRICS_TOKEN } = config;
  const bearer = /^Bearer +(\S+) *$/i.exec(authorization ?? "")?.[1] ?? "";
  return METRICS_ENABLED && (!METRICS_TOKEN || sameSecret(bearer, METRICS_TOKEN));
}

// How often the event-loop lag is sampled. prom-client's 10 ms woke every process 100 times a second, busy or idle:
// an idle gateway used 5.3-6.3 ms of CPU a second, 2.0-3.0 with 100 ms (issue 24). A lag of 100 ms is still seen in
// the samples a scrape every 15 s or more collects.
const EVENT_LOOP_SAMPLE_MS = 100;

/** A registry with the process's default metrics (CPU, memory, event-loop lag, GC, handles). */
export function processMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
  return registry;
}

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

export async function startMetricsServer(opts: {
  config: MetricsConfig;
  registry: Registry;
  logger: Logger;
  port: number;
  host?: string;
}): Promise<MetricsServer> {
  const { config, registry, logger } = opts;
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://metrics").pathname;
    if (req.method !== "GET" || path !== "/metrics" || !mayScrape(config, req.headers.authorization)) {
      res.writeHead(404, { "Content-Type": "text/plain" }).end("Not Found\n");
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { "Content-Type": registry.contentType }).end(text),
      (err: unknown) => {
        logger.error({ err }, "metrics exposition failed");
        res.writeHead(500, { "Content-Type": "text/plain" }).end("Internal Server Error\n");
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  logger.info({ port }, "metrics listening");
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
