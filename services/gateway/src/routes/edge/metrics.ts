// /metrics in the Prometheus text format. Off (METRICS_ENABLED=false), served on a port of its own (METRICS_PORT,
// @sca/runtime/metrics) or asked with a bearer other than METRICS_TOKEN, it answers exactly as an unknown path does,
// so its existence is not disclosed.
import { mayScrape } from "@sca/runtime/metrics";
import { z } from "zod";
import { problemResponse } from "../../api/problem-schema.ts";
import { notFoundProblem } from "../../api/route-registry.ts";
import { defineRoute, type Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";

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
