// The gateway's HTTP server: the express app plus WebSocket upgrades, and a close that drains.
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createGatewayApp } from "./app.ts";
import type { Route } from "./api/route.ts";
import { problemBaseUrl } from "./config.ts";
import type { GatewayContext } from "./context.ts";
import { answerClientError } from "./http/client-error.ts";
import { createProblemRenderer } from "./http/problem-response.ts";
import { SHUTDOWN_CLOSE } from "./ws/scan-progress.ts";
import { attachWebSockets, type WebSocketEndpoint } from "./ws/websocket-upgrade.ts";

export interface GatewayServer {
  port: number;
  /** Stops accepting, lets in-flight requests finish (up to graceMs), closes WebSockets with SHUTDOWN_CLOSE. */
  close(graceMs?: number): Promise<void>;
}

export interface GatewayServerOptions {
  port: number;
  host?: string;
  routes: readonly Route[];
  webSocketEndpoints: readonly WebSocketEndpoint[];
}

/**
 * How long an idle keep-alive connection stays open: longer than the idle timeout of the proxies in front of the
 * gateway (60 s for ingress-nginx's upstream keep-alive and cloud load balancers), so a proxy never reuses a
 * connection the gateway is closing that instant (a 502 for the request it sent). Node's default is 5 s.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;

export async function startGatewayServer(ctx: GatewayContext, opts: GatewayServerOptions): Promise<GatewayServer> {
  const server = createServer(
    // Headers may take as long as a connection may idle: Node measures a kept-alive request's from the idle start.
    { keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS, headersTimeout: KEEP_ALIVE_TIMEOUT_MS + 1_000 },
    createGatewayApp(ctx, opts.routes),
  );
  const problems = createProblemRenderer(problemBaseUrl(ctx.config));
  server.on("clientError", answerClientError(problems));
  const wss = attachWebSockets(server, {
    allowedOrigins: ctx.config.CORS_ALLOWED_ORIGINS,
    endpoints: opts.webSocketEndpoints,
    problems,
    logger: ctx.logger,
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  // Answers given while closing end their keep-alive connection, so draining does not wait for idle timeouts.
  let closing = false;
  const inFlight = new Set<ServerResponse>();
  server.on("request", (_req, res: ServerResponse) => {
    if (closing) res.setHeader("Connection", "close");
    inFlight.add(res);
    res.once("close", () => inFlight.delete(res));
  });
  const port = (server.address() as AddressInfo).port;
  ctx.logger.info({ port }, "gateway listening");
  return {
    port,
    close: (graceMs = 10_000) =>
      new Promise<void>((resolve) => {
        closing = true;
        for (const res of inFlight) if (!res.headersSent) res.setHeader("Connection", "close");
        for (const ws of wss.clients) ws.close(...SHUTDOWN_CLOSE);
        const force = setTimeout(() => {
          server.closeAllConnections();
          for (const ws of wss.clients) ws.terminate();
        }, graceMs);
        // close() stops accepting and ends idle keep-alive connections; busy ones end after their answer.
        server.close(() => {
          clearTimeout(force);
          wss.close(() => resolve());
        });
      }),
  };
}
