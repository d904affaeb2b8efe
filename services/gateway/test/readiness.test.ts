// /health/ready against real domain services started as child processes: 200 when identity, the one service the
// gateway needs, answers grpc.health.v1 Check("readiness") with SERVING, listing any other service not serving (not
// migrated, down) as degraded; 503 when identity is down or silent (not_serving: readiness.pure.test.ts). Redis is reported, never decisive. Also: a plain
// @grpc/grpc-js client talks to a service (gRPC interop). degraded-routes.test.ts has the routes' side.
import { createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { Health } from "@sca/proto/grpc/health/v1/health_pb.ts";
import { createServiceClient } from "@sca/rpc";
import { testServers, uniqueName } from "@sca/testkit";
import { READINESS_TIMEOUT_MS, type ReadinessTarget } from "../src/health/readiness.ts";
import {
  createScratchDatabase,
  freePort,
  migrateService,
  REPO_ROOT,
  startService,
  type RunningService,
} from "./domain-services.ts";
import { problemOf, startTestGateway, type TestGateway } from "./harness.ts";

const target = (name: string, url: string): ReadinessTarget => ({
  name,
  health: createServiceClient(Health, url, { timeoutMs: READINESS_TIMEOUT_MS }),
});

let policy: RunningService;
let admin: RunningService;
let unmigrated: RunningService;
let scratch: Awaited<ReturnType<typeof createScratchDatabase>>;

beforeAll(async () => {
  const { databaseUrl } = testServers();
  await Promise.all([migrateService("policy", databaseUrl), migrateService("admin", databaseUrl)]);
  // notifier runs against a database where its schema was never created: not at head.
  scratch = await createScratchDatabase(databaseUrl, uniqueName("gw_ready"));
  [policy, admin, unmigrated] = await Promise.all([
    startService("policy", databaseUrl),
    startService("admin", databaseUrl),
    startService("notifier", scratch.url),
  ]);
}, 90_000);

afterAll(async () => {
  await Promise.all([policy, admin, unmigrated].filter(Boolean).map((s) => s.stop()));
  await scratch?.drop();
});

async function ready(targets: ReadinessTarget[], redisUrl?: string) {
  const gw: TestGateway = await startTestGateway({ readinessTargets: targets, ...(redisUrl ? { redisUrl } : {}) });
  try {
    const res = await fetch(`${gw.origin}/api/health/ready`);
    return {
      status: res.status,
      body: res.status === 200 ? ((await res.json()) as Record<string, unknown>) : await problemOf(res),
    };
  } finally {
    await gw.close();
  }
}

describe("/health/ready", () => {
  it("is 200 when every service is serving, with Redis ok", async () => {
    const { status, body } = await ready([target("policy", policy.url), target("admin", admin.url)]);
    expect(status).toBe(200);
    expect(body).toEqual({
      status: "ready",
      redis: "ok",
      services: { policy: "serving", admin: "serving" },
      degraded: [],
    });
  });

  it("is 503 when identity is down, naming it", async () => {
    // Port 9 (discard) refuses, as a Service without ready endpoints does.
    const { status, body } = await ready([target("policy", policy.url), target("identity", "http://127.0.0.1:9")]);
    expect(status).toBe(503);
    expect(body).toMatchObject({
      status: 503,
      code: "not_ready",
      type: "https://portal.example.test/problems/not_ready",
      detail: "Not ready: identity is unreachable.",
      instance: "/health/ready",
      redis: "ok",
      services: { policy: "serving", identity: "unreachable" },
      degraded: [],
    });
  });

  it("stays 200, degraded, when another service's schema is not at head", async () => {
    const { status, body } = await ready([target("policy", policy.url), target("notifier", unmigrated.url)]);
    expect(status).toBe(200);
    expect(body).toEqual({
      status: "ready",
      redis: "ok",
      services: { policy: "serving", notifier: "not_serving" },
      degraded: ["notifier"],
    });
  });

  it("keeps Redis observational: unreachable Redis is reported and the answer stays 200", async () => {
    const { status, body } = await ready([target("policy", policy.url)], "redis://127.0.0.1:1");
    expect(status).toBe(200);
    expect(body).toMatchObject({ status: "ready", redis: "error" });
    // ioredis leaves a 2 s timer waiting for the close of a socket that never opened; let it fire.
    await new Promise((r) => setTimeout(r, 2_100));
  });

  it("gives up on identity when it accepts but never answers, within the short deadline", async () => {
    const sockets = new Set<Socket>();
    const silent: Server = createServer((s) => {
      sockets.add(s);
    });
    const port = await freePort();
    await new Promise<void>((r) => silent.listen(port, "127.0.0.1", r));
    try {
      const started = Date.now();
      const { status, body } = await ready([
        target("policy", policy.url),
        target("identity", `http://127.0.0.1:${port}`),
      ]);
      expect(Date.now() - started).toBeLessThan(READINESS_TIMEOUT_MS + 1_500);
      expect(status).toBe(503);
      expect(body.services).toEqual({ policy: "serving", identity: "unreachable" });
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((r) => silent.close(r));
    }
  });

  it("is 200, degraded, when another service is down, and 503 when identity is down too", async () => {
    await admin.stop();
    const degraded = await ready([target("policy", policy.url), target("admin", admin.url)]);
    expect(degraded.status).toBe(200);
    expect(degraded.body).toMatchObject({ services: { policy: "serving", admin: "unreachable" }, degraded: ["admin"] });
    const { status, body } = await ready([target("admin", admin.url), target("identity", "http://127.0.0.1:9")]);
    expect(status).toBe(503);
    expect(body).toMatchObject({
      detail: "Not ready: admin is unreachable, identity is unreachable.",
      services: { admin: "unreachable", identity: "unreachable" },
      degraded: ["admin"],
    });
  });
});

describe("gRPC interop", () => {
  interface HealthStub {
    Check(req: { service: string }, cb: (err: grpc.ServiceError | null, res?: { status: string }) => void): void;
    close(): void;
  }

  it("a plain @grpc/grpc-js client with the .proto file gets the service's health", async () => {
    const definition = protoLoader.loadSync(`${REPO_ROOT}proto/grpc/health/v1/health.proto`, { enums: String });
    const loaded = grpc.loadPackageDefinition(definition);
    const HealthClient = (((loaded.grpc as grpc.GrpcObject).health as grpc.GrpcObject).v1 as grpc.GrpcObject)
      .Health as grpc.ServiceClientConstructor;
    const check = (port: number, service: string) =>
      new Promise<{ status?: string; code?: grpc.status }>((resolve) => {
        const client = new HealthClient(
          `127.0.0.1:${port}`,
          grpc.credentials.createInsecure(),
        ) as unknown as HealthStub;
        client.Check({ service }, (err, res) => {
          client.close();
          resolve(err ? { code: err.code } : { status: res!.status });
        });
      });
    expect(await check(policy.port, "readiness")).toEqual({ status: "SERVING" });
    expect(await check(policy.port, "")).toEqual({ status: "SERVING" });
    expect(await check(unmigrated.port, "readiness")).toEqual({ status: "NOT_SERVING" });
    expect(await check(policy.port, "no-such-check")).toEqual({ code: grpc.status.NOT_FOUND });
  });
});
