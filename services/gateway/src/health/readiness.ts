// Readiness of the gateway: each domain service is asked grpc.health.v1 Check("readiness") (SERVING only when its
// schema is at head), in parallel with a short deadline. The gateway is ready when the services it needs to answer
// anything are serving (GATEWAY_NEEDS); any other service not serving only degrades it: that service's routes answer
// 503 problems (their calls fail as Unavailable) while the rest of the API keeps working, so one service's outage
// does not take every gateway pod out of the Service. Redis is reported but never decides (ADR 0004).
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

/**
 * The services without which the gateway answers nothing useful: identity authenticates every caller (tokens, API
 * keys, sign-in). The others serve their own routes only.
 */
export const GATEWAY_NEEDS: readonly string[] = ["identity"] satisfies readonly ServiceName[];

export interface Readiness {
  ready: boolean;
  /** The services not serving whose routes answer 503 meanwhile (the gateway stays ready without them). */
  degraded: string[];
  redis: "ok" | "error";
  services: Record<string, ServiceReadiness>;
}

/** Health clients of the domain services (all seven unless `names` says), each at `urlOf(service)`. */
export function domainServiceTargets(
  urlOf: (service: ServiceName) => string,
  names: readonly ServiceName[] = Object.keys(SERVICES) as ServiceName[],
): ReadinessTarget[] {
  return names.map((name) => ({
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
  return { ...readinessOf(services), redis: redisState, services };
}

/** Ready when every needed service is serving; the others not serving are degraded. */
export function readinessOf(services: Record<string, ServiceReadiness>): Pick<Readiness, "ready" | "degraded"> {
  const down = Object.keys(services).filter((name) => services[name] !== "serving");
  return {
    ready: down.every((name) => !GATEWAY_NEEDS.includes(name)),
    degraded: down.filter((name) => !GATEWAY_NEEDS.includes(name)),
  };
}
