// The express application: edge middleware in the order a request meets it, then the routes, then the one
// error handler that renders every problem.
import express, { type Express } from "express";
import { RouteRegistry } from "./api/route-registry.ts";
import type { Route } from "./api/route.ts";
import { problemBaseUrl } from "./config.ts";
import type { GatewayContext } from "./context.ts";
import { canonicalizePath } from "./http/canonical-path.ts";
import { cors } from "./http/cors.ts";
import { demoReadOnly, sandboxScanPath } from "./http/demo-read-only.ts";
import { createProblemRenderer, problemErrorHandler } from "./http/problem-response.ts";
import { requestId } from "./http/request-id.ts";
import { requestLog } from "./http/request-log.ts";
import { requestSpans } from "./http/request-spans.ts";
import { addDocsPages } from "./openapi/docs-pages.ts";
import { buildOpenApiDocument } from "./openapi/document.ts";

export function createGatewayApp(ctx: GatewayContext, routes: readonly Route[]): Express {
  const registry = new RouteRegistry().add(...routes);
  // Built now, so a schema the document cannot express stops the start-up rather than the first docs visit.
  addDocsPages(registry, JSON.stringify(buildOpenApiDocument(registry.documented)));

  const app = express();
  app.disable("x-powered-by");
  // ETags are the resources' versions, for If-Match, set by the routes that have them. Express's own (a SHA-1 of
  // every body) gave a second meaning to the header and cost ~0.06 ms on a 137 KB page; no client sent If-None-Match.
  app.set("etag", false);
  app.set("trust proxy", ctx.config.TRUST_PROXY_HOPS);
  app.use(
    canonicalizePath(),
    requestId(),
    requestLog(ctx.logger),
    ctx.metrics.middleware(),
    requestSpans(),
    cors(ctx.config.CORS_ALLOWED_ORIGINS),
  );
  // After CORS, so a browser can read the refusal.
  if (ctx.config.DEMO_READ_ONLY) app.use(demoReadOnly(sandboxScanPath(ctx.config)));
  registry.mount(app);
  app.use(problemErrorHandler(createProblemRenderer(problemBaseUrl(ctx.config)), ctx.logger));
  return app;
}
