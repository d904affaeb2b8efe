// /metrics on a port of its own (METRICS_PORT): Prometheus scrapes it inside the cluster while the ingress, which
// routes the HTTP port only, cannot reach it. The same answer and bearer check as the route on the HTTP port.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { GatewayContext } from "./context.ts";
import { mayScrape } from "./routes/edge/metrics.ts";

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

export async function startMetricsServer(
  ctx: GatewayContext,
  listen: { port: number; host?: string },
): Promise<MetricsServer> {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://metrics").pathname;
    if (req.method !== "GET" || path !== "/metrics" || !mayScrape(ctx.config, req.headers.authorization)) {
      res.writeHead(404, { "Content-Type": "text/plain" }).end("Not Found\n");
      return;
    }
    ctx.metrics.exposition().then(
      ({ contentType, text }) => res.writeHead(200, { "Content-Type": contentType }).end(text),
      (err: unknown) => {
        ctx.logger.error({ err }, "metrics exposition failed");
        res.writeHead(500, { "Content-Type": "text/plain" }).end("Internal Server Error\n");
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(listen.port, listen.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  ctx.logger.info({ port }, "gateway metrics listening");
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
