// Readiness of the portal as the gateway sees it: every domain service answers grpc.health.v1 Check for
// "readiness" (SERVING only when its schema is at head), asked in parallel with a short deadline. Redis is
// reported but never decides (ADR 0004).
import type { Client } from "@connectrpc/connect";
import { Health, HealthCheckResponse_ServingStatus as Status } from "@sca/proto/grpc/health/v1/health_pb.ts";
import type { Redis } from "@sca/redis";
import { createServiceClient, READINESS } from "@sca/rpc";
import { SERVICES, type ServiceName } from "@sca/runtime/services";

export const READINESS_TIMEOUT_MS = 2_000;

export type ServiceReadiness = "serving" | "not_serving" | "unknown" | "unreachable";

export interface ReadinessTarget {
  name: string;
  health: Client<typeof Health>;
}

export interface Readiness {
  ready: boolean;
  redis: "ok" | "error";
  services: Record<string, ServiceReadiness>;
}

/** Health clients of the seven domain services, each at `urlOf(service)`. */
export function domainServiceTargets(urlOf: (service: ServiceName) => string): ReadinessTarget[] {
  return (Object.keys(SERVICES) as ServiceName[]).map((name) => ({
    name,
    health: createServiceClient(Health, urlOf(name), { timeoutMs: READINESS_TIMEOUT_MS }),
  }));
}

async function serviceReadiness(target: ReadinessTarget): Promise<ServiceReadiness> {
  try {
    const { status } = await target.health.check({ service: READINESS }, { timeoutMs: READINESS_TIMEOUT_MS });
    return status === Status.SERVING ? "serving" : status === Status.NOT_SERVING ? "not_serving" : "unknown";
  } catch {
    return "unreachable";
  }
}

async function redisReadiness(redis: Redis): Promise<"ok" | "error"> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("timeout")), READINESS_TIMEOUT_MS);
  });
  try {
    return (await Promise.race([redis.ping(), deadline])) === "PONG" ? "ok" : "error";
  } catch {
    return "error";
  } finally {
    clearTimeout(timer);
  }
}

export async function checkReadiness(targets: readonly ReadinessTarget[], redis: Redis): Promise<Readiness> {
  const [redisState, ...states] = await Promise.all([redisReadiness(redis), ...targets.map(serviceReadiness)]);
  const services = Object.fromEntries(targets.map((t, i) => [t.name, states[i]!]));
  return { ready: states.every((s) => s === "serving"), redis: redisState, services };
}
