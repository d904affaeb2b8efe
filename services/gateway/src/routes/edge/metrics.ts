// /metrics in the Prometheus text format. Off (METRICS_ENABLED=false), served on a port of its own (METRICS_PORT,
// src/metrics-server.ts) or asked with a bearer other than METRICS_TOKEN, it answers exactly as an unknown path does,
// so its existence is not disclosed.
import { createHash, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { problemResponse } from "../../api/problem-schema.ts";
import { notFoundProblem } from "../../api/route-registry.ts";
import { defineRoute, type Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";
import { bearerOf } from "../../http/authenticate.ts";

// Hashing first gives equal lengths, so the comparison takes the same time whatever was sent.
function sameSecret(given: string, expected: string): boolean {
  const digest = (s: string) => createHash("sha256").update(s).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** Whether a scrape with this Authorization header may read the metrics (METRICS_TOKEN, when set, as its bearer). */
export function mayScrape(config: GatewayContext["config"], authorization: string | undefined): boolean {
  const { METRICS_ENABLED, METRICS_TOKEN } = config;
  return METRICS_ENABLED && (!METRICS_TOKEN || sameSecret(bearerOf(authorization) ?? "", METRICS_TOKEN));
}

export function metricsRoutes(ctx: GatewayContext): Route[] {
  const onOwnPort = ctx.config.METRICS_PORT >= 0;
  return [
    defineRoute({
      method: "get",
      path: "/metrics",
      summary: "Prometheus metrics (aggregate counts only)",
      description:
        "Answers 404 when METRICS_ENABLED is false, when METRICS_PORT serves it instead, or when METRICS_TOKEN is set and the bearer differs.",
      tags: ["health"],
      operationId: "metrics",
      responses: {
        200: { description: "Prometheus text exposition format", schema: z.string(), contentType: "text/plain" },
        404: problemResponse("Metrics are off or on METRICS_PORT, or the bearer is not METRICS_TOKEN"),
      },
      handler: async ({ req }) => {
        if (onOwnPort || !mayScrape(ctx.config, req.get("authorization"))) throw notFoundProblem(req.path);
        const { contentType, text } = await ctx.metrics.exposition();
        return { status: 200, body: text, headers: { "Content-Type": contentType } };
      },
    }),
  ];
}
