// The frontend's server: the built single-page app with long-cached hashed assets, GET /healthz for the container's
// liveness, and (when GATEWAY_URL is set, as ./dev up runs it) /api and its WebSockets proxied to the gateway, so the
// UI and the API share one origin. Every route the app has answers index.html; the app's router takes it from there.
import { existsSync } from "node:fs";
import { Agent, createServer, type Server } from "node:http";
import { join } from "node:path";
import { format } from "node:util";
import { loadConfig, type ConfigOf } from "@sca/config";
import { createLogger, type Logger } from "@sca/log";
import express from "express";
import { createProxyMiddleware } from "http-proxy-middleware";
import { frontendKeys } from "./config.ts";
import { securityHeaders } from "./security-headers.ts";

export type FrontendConfig = ConfigOf<typeof frontendKeys>;

export interface FrontendOverrides {
  env?: Readonly<Record<string, string | undefined>>;
  logger?: Logger;
  listen?: { port: number; host?: string };
}

export interface FrontendInstance {
  url: string;
  logger: Logger;
  close(): Promise<void>;
}

// Vite names every asset after its content, so an asset URL never changes meaning: a year, immutable.
const ASSET_MAX_AGE_S = 365 * 24 * 3600;

export async function startFrontend(overrides: FrontendOverrides = {}): Promise<FrontendInstance> {
  const config = loadConfig(frontendKeys, overrides.env);
  const logger = overrides.logger ?? createLogger("frontend", config.LOG_LEVEL);
  const dist = config.FRONTEND_DIST_DIR;
  if (!existsSync(join(dist, "index.html")))
    throw new Error(`no built app at ${dist}: run 'pnpm --filter @sca/frontend build'`);

  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", false);
  const proxy = config.GATEWAY_URL
    ? createProxyMiddleware({
        target: config.GATEWAY_URL,
        pathFilter: ["/api"],
        ws: true,
        // The gateway keys its per-address limits on the client (TRUST_PROXY_HOPS=1 behind this server).
        xfwd: true,
        // Kept-alive connections, each closed after 10 s idle (the agent's `timeout` acts on idle sockets only;
        // upgraded ones are the proxy's, without a timeout): far inside the gateway's 65 s, so one is never reused
        // just as the gateway closes it (ECONNRESET, answered 504: with the gateway's former 5 s and timers late on
        // a busy machine, a sign-in refresh lost that way ended a UI test's session). A connection per request cost
        // the gateway about 0.6 ms of CPU a request (docs/benchmarks.md, component-list).
        agent: new Agent({ keepAlive: true, timeout: 10_000 }),
        logger: {
          info: () => undefined,
          warn: (m: unknown, ...args: unknown[]) => logger.warn(proxyMessage(m, args)),
          error: (m: unknown, ...args: unknown[]) => logger.error(proxyMessage(m, args)),
        },
      })
    : undefined;
  if (proxy) app.use(proxy);
  app.use(securityHeaders);
  app.get("/healthz", (_req, res) => {
    res.setHeader("Cache-Control", "no-store");
    res.json({ status: "ok" });
  });
  app.use(
    "/assets",
    express.static(join(dist, "assets"), {
      immutable: true,
      maxAge: ASSET_MAX_AGE_S * 1000,
      index: false,
      fallthrough: false,
    }),
  );
  app.use(express.static(dist, { index: false, maxAge: 0 }));
  // The app's own routes: its shell, never cached, so a new deployment's asset names are picked up on the next load.
  app.get("/{*path}", (_req, res) => {
    res.setHeader("Cache-Control", "no-cache");
    res.sendFile(join(dist, "index.html"));
  });

  const server: Server = createServer(app);
  if (proxy) server.on("upgrade", proxy.upgrade);
  const listen = overrides.listen ?? { port: config.HTTP_PORT };
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(listen.port, listen.host, resolve);
  });
  const { port } = server.address() as { port: number };
  const host = !listen.host || ["0.0.0.0", "::"].includes(listen.host) ? "127.0.0.1" : listen.host;
  logger.info({ port, gateway: config.GATEWAY_URL || null }, "frontend listening");
  return {
    url: `http://${host}:${port}`,
    logger,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * The proxy's message with its arguments in place (it logs printf-style: "... request %s to %s [%s]"), each URL
 * without its query string: OAuth codes and states travel there, and the gateway never logs them either.
 */
function proxyMessage(message: unknown, args: unknown[]): string {
  return format(String(message), ...args.map((a) => (typeof a === "string" ? a.replace(/\?.*$/s, "") : a)));
}
