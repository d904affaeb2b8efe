// /metrics in the Prometheus text format. Off (METRICS_ENABLED=false) or asked with a bearer other than
// METRICS_TOKEN, it answers exactly as an unknown path does, so its existence is not disclosed.
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

export function metricsRoutes(ctx: GatewayContext): Route[] {
  const { METRICS_ENABLED, METRICS_TOKEN } = ctx.config;
  return [
    defineRoute({
      method: "get",
      path: "/metrics",
      summary: "Prometheus metrics (aggregate counts only)",
      description: "Answers 404 when METRICS_ENABLED is false, or when METRICS_TOKEN is set and the bearer differs.",
      tags: ["health"],
      operationId: "metrics",
      responses: {
        200: { description: "Prometheus text exposition format", schema: z.string(), contentType: "text/plain" },
        404: problemResponse("Metrics are off, or the bearer is not METRICS_TOKEN"),
      },
      handler: async ({ req }) => {
        if (
          !METRICS_ENABLED ||
          (METRICS_TOKEN && !sameSecret(bearerOf(req.get("authorization")) ?? "", METRICS_TOKEN))
        ) {
          throw notFoundProblem(req.path);
        }
        const { contentType, text } = await ctx.metrics.exposition();
        return { status: 200, body: text, headers: { "Content-Type": contentType } };
      },
    }),
  ];
}
