// Liveness (/health, /healthz) and readiness (/health/ready) of the portal.
import { z } from "zod";
import { ProblemError } from "@sca/problem";
import { problemResponse } from "../../api/problem-schema.ts";
import { defineRoute, type Route } from "../../api/route.ts";
import { checkReadiness } from "../../health/readiness.ts";
import { API_VERSION } from "../../openapi/document.ts";
import type { GatewayContext } from "../../context.ts";

const liveness = z.object({
  status: z.literal("ok"),
  version: z.string().meta({ description: "Schema version of the API" }),
  demo_read_only: z.boolean(),
  demo_sandbox_scans: z.boolean(),
});

const serviceStates = z
  .record(z.string(), z.enum(["serving", "not_serving", "unknown", "unreachable"]))
  .meta({ description: 'Readiness of each domain service (grpc.health.v1, service "readiness")' });

const ready = z.object({
  status: z.literal("ready"),
  redis: z.enum(["ok", "error"]).meta({ description: "Observational: never changes the status code" }),
  services: serviceStates,
  degraded: z.array(z.string()).meta({
    description: "Services not serving whose routes answer 503 meanwhile; the gateway needs only identity to be ready",
  }),
});

export function healthRoutes(ctx: GatewayContext): Route[] {
  return [
    defineRoute({
      method: "get",
      path: "/health",
      summary: "Liveness of the gateway (no database access)",
      tags: ["health"],
      operationId: "health",
      responses: { 200: { description: "The gateway is running", schema: liveness } },
      handler: () => ({
        status: 200,
        body: {
          status: "ok",
          version: API_VERSION,
          demo_read_only: ctx.config.DEMO_READ_ONLY,
          demo_sandbox_scans: ctx.config.DEMO_ALLOW_SANDBOX_SCANS,
        },
      }),
    }),
    defineRoute({
      method: "get",
      path: "/healthz",
      summary: "Liveness for the frontend container's probe (not a v1 surface)",
      tags: ["health"],
      operationId: "healthz",
      responses: { 200: { description: "Alive", schema: z.object({ status: z.literal("ok") }) } },
      handler: () => ({ status: 200, body: { status: "ok" } }),
    }),
    defineRoute({
      method: "get",
      path: "/health/ready",
      summary:
        "Readiness: the services the gateway needs (identity) reachable with their schema at the latest migration",
      tags: ["health"],
      operationId: "healthReady",
      responses: {
        200: { description: "Ready", schema: ready },
        503: problemResponse("Not ready; the problem carries `redis`, `services` and `degraded` as in the 200 answer"),
      },
      handler: async () => {
        const readiness = await checkReadiness(ctx.readinessTargets, ctx.redis);
        if (!readiness.ready) {
          const waiting = Object.entries(readiness.services)
            .filter(([, s]) => s !== "serving")
            .map(([name, s]) => `${name} is ${s}`);
          throw new ProblemError({
            status: 503,
            code: "not_ready",
            detail: `Not ready: ${waiting.join(", ")}.`,
            extensions: { redis: readiness.redis, services: readiness.services, degraded: readiness.degraded },
          });
        }
        const { redis, services, degraded } = readiness;
        return { status: 200, body: { status: "ready", redis, services, degraded } };
      },
    }),
  ];
}
