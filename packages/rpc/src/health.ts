// grpc.health.v1 for every service. "" is liveness (serving while the process runs); "readiness" is
// serving only when the service's own checks pass (its schema at the latest migration, ...).
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, type ConnectRouter } from "@connectrpc/connect";
import {
  Health,
  HealthCheckResponseSchema,
  HealthCheckResponse_ServingStatus as Status,
  HealthListResponseSchema,
} from "@sca/proto/grpc/health/v1/health_pb.ts";

type Check = () => Promise<boolean>;

export const READINESS = "readiness";

export class HealthRegistry {
  private readonly checks = new Map<string, Check>([["", () => Promise.resolve(true)]]);
  private shuttingDown = false;

  /** Registers a named check, e.g. registry.add("readiness", () => schemaAtHead()). */
  add(service: string, check: Check): this {
    this.checks.set(service, check);
    return this;
  }

  /** From SIGTERM on, every check answers NOT_SERVING so load balancers stop sending traffic. */
  markShuttingDown(): void {
    this.shuttingDown = true;
  }

  async status(service: string): Promise<Status | undefined> {
    const check = this.checks.get(service);
    if (!check) return undefined;
    if (this.shuttingDown) return Status.NOT_SERVING;
    try {
      return (await check()) ? Status.SERVING : Status.NOT_SERVING;
    } catch {
      return Status.NOT_SERVING;
    }
  }

  register(router: ConnectRouter): void {
    const status = (service: string) => this.status(service);
    router.service(Health, {
      check: async (req) => {
        const current = await status(req.service);
        if (current === undefined) throw new ConnectError(`unknown service "${req.service}"`, Code.NotFound);
        return create(HealthCheckResponseSchema, { status: current });
      },
      list: async () => {
        const statuses: Record<string, ReturnType<typeof create<typeof HealthCheckResponseSchema>>> = {};
        for (const name of this.checks.keys()) {
          statuses[name] = create(HealthCheckResponseSchema, { status: (await status(name))! });
        }
        return create(HealthListResponseSchema, { statuses });
      },
      watch: async function* (req, ctx) {
        let last: Status | undefined;
        while (!ctx.signal.aborted) {
          const current = (await status(req.service)) ?? Status.SERVICE_UNKNOWN;
          if (current !== last) yield create(HealthCheckResponseSchema, { status: current });
          last = current;
          await new Promise((r) => setTimeout(r, 2000));
        }
      },
    });
  }
}
