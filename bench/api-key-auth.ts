// API-key authentication overhead at the gateway with a warm cache (target: at most 1 ms at p50).
//
// What is measured, in one process against the real Redis (REDIS_URL):
// 1. the authenticator alone: `resolve(bearer)` for an API key whose answer is cached — a Redis GET, the
//    fingerprint HMAC and its constant-time compare, and the verification of the caller token (HS256);
// 2. the same trivial route through the real gateway (started as production starts it: the edge middleware, the
//    route registry, the reply schema), once without `auth` and once with `auth: caller` and the key; sequential keep-alive requests,
//    alternating between the two so drift hits both alike. The difference of the p50s is what authentication
//    adds to a request;
// 3. the same pair under load (autocannon, 10 connections) for throughput.
// The cache entry is written with the gateway's own writer and a caller token signed as identity signs it, so
// no identity is running: a cache miss would call an unreachable identity and fail the run, which proves every
// measured request was a warm hit. Identity's cold path (a primary-key read, the HMAC of the key, the
// membership query) is not measured here.
import { randomBytes } from "node:crypto";
import { Agent, request } from "node:http";
import autocannon from "autocannon";
import { serviceAddressKey } from "@sca/config";
import { createLogger } from "@sca/log";
import { SERVICES, type ServiceName } from "@sca/runtime/services";
import { signCallerToken, type Caller } from "@sca/rpc";
// The bench mounts two routes of its own on a gateway started as production starts it: the route and authentication
// pieces it needs are the one exception to the benches' front-door rule (eslint.config.js).
/* eslint-disable no-restricted-imports */
import { defineRoute } from "../services/gateway/src/api/route.ts";
import type { GatewayContext } from "../services/gateway/src/context.ts";
import { redisApiKeyAnswers } from "../services/gateway/src/http/api-key-answers.ts";
import { authenticatedOf } from "../services/gateway/src/http/authenticate.ts";
import { startGateway } from "../services/gateway/src/service.ts";
/* eslint-enable no-restricted-imports */
import { percentile, printTable } from "./table.ts";

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 5000);
const DURATION = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 10;

const secretKey = randomBytes(32).toString("hex");
const namespace = `bench:api-key-auth:${randomBytes(4).toString("hex")}:`;
const logger = createLogger("bench", "ERROR");

const benchRoutes = (ctx: GatewayContext) => [
  defineRoute({
    method: "get",
    path: "/v1/bench/open",
    summary: "bench: no authentication",
    tags: ["bench"],
    responses: { 204: { description: "nothing" } },
    handler: () => ({ status: 204 }),
  }),
  defineRoute({
    method: "get",
    path: "/v1/bench/authenticated",
    summary: "bench: any caller",
    tags: ["bench"],
    auth: ctx.auth.route("caller"),
    responses: { 204: { description: "nothing" } },
    handler: ({ req }) => {
      authenticatedOf(req);
      return { status: 204 };
    },
  }),
];
const gateway = await startGateway({
  env: {
    SECRET_KEY: secretKey,
    REDIS_URL: process.env.REDIS_URL,
    // Nothing listens there: only cache hits can succeed.
    ...Object.fromEntries(
      (Object.keys(SERVICES) as ServiceName[]).map((service) => [serviceAddressKey(service), "http://127.0.0.1:9"]),
    ),
  },
  logger,
  listen: { port: 0, host: "127.0.0.1" },
  seams: { rateLimitNamespace: `${namespace}rl:`, apiKeyAnswerNamespace: namespace },
  routes: benchRoutes,
  scanProgress: false,
});
const { ctx, redis } = gateway;
const port = gateway.server.port;

// A team key of a holder in a few teams, as identity would answer it.
const bearer = `tos_${randomBytes(6).toString("hex")}_${randomBytes(32).toString("base64url")}`;
const team = "0190f1f2-0000-7000-8000-00000000000a";
const caller: Caller = {
  kind: "api_key",
  user_id: "0190f1f2-0000-7000-8000-000000000001",
  email: "ci@example.com",
  is_superuser: false,
  memberships: [{ team_id: team, organization_id: "0190f1f2-0000-7000-8000-0000000000aa", role: "team_admin" }],
  api_key_id: "0190f1f2-0000-7000-8000-0000000000ff",
  api_key: {
    scope: "team",
    organization_id: "0190f1f2-0000-7000-8000-0000000000aa",
    team_id: team,
    project_id: null,
    permission_breadth: "read_write",
  },
  ip: "203.0.113.9",
  user_agent: "bench",
};
// Refilled before each phase: a caller token lives 60 s and the entry 30 s, as identity allows.
const warm = async () =>
  redisApiKeyAnswers(redis, secretKey, logger, namespace).write(bearer, await signCallerToken(caller, secretKey), 30);

async function timeResolve(): Promise<number[]> {
  await warm();
  const client = { ip: "127.0.0.1", userAgent: "bench" };
  for (let i = 0; i < 500; i++) await ctx.auth.resolve(bearer, client);
  const out: number[] = [];
  for (let i = 0; i < ITERATIONS; i++) {
    const t = process.hrtime.bigint();
    await ctx.auth.resolve(bearer, client);
    out.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return out;
}

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

function get(path: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const t = process.hrtime.bigint();
    const req = request({ host: "127.0.0.1", port, path, headers, agent }, (res) => {
      res.resume();
      res.on("end", () =>
        res.statusCode === 204
          ? resolve(Number(process.hrtime.bigint() - t) / 1e6)
          : reject(new Error(`${path}: ${res.statusCode}`)),
      );
    });
    req.on("error", reject);
    req.end();
  });
}

async function timeRequests(): Promise<{ open: number[]; authenticated: number[] }> {
  await warm();
  const withKey = { authorization: `Bearer ${bearer}` };
  for (let i = 0; i < 500; i++) {
    await get("/v1/bench/open", {});
    await get("/v1/bench/authenticated", withKey);
  }
  const open: number[] = [];
  const authenticated: number[] = [];
  for (let i = 0; i < ITERATIONS; i++) {
    open.push(await get("/v1/bench/open", {}));
    authenticated.push(await get("/v1/bench/authenticated", withKey));
  }
  return { open, authenticated };
}

async function load(path: string, headers: Record<string, string>) {
  await warm();
  const r = await autocannon({
    url: `http://127.0.0.1:${port}${path}`,
    connections: CONNECTIONS,
    duration: DURATION,
    headers,
  });
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${path}: ${r.non2xx} non-2xx answers, ${r.errors} errors`);
  return r;
}

const resolveMs = await timeResolve();
const sequential = await timeRequests();
const openLoad = await load("/v1/bench/open", {});
const authLoad = await load("/v1/bench/authenticated", { authorization: `Bearer ${bearer}` });
const overheadP50 = percentile(sequential.authenticated, 50) - percentile(sequential.open, 50);

const row = (what: string, ms: number[]) => ({
  what,
  "p50 ms": percentile(ms, 50),
  "p99 ms": percentile(ms, 99),
  "req/s": "",
});
printTable(
  `API-key authentication with a warm cache (${ITERATIONS} sequential requests each, then ${CONNECTIONS} connections for ${DURATION} s)`,
  [
    row("authenticator.resolve alone (Redis GET + fingerprint + token verify)", resolveMs),
    row("GET, no auth (sequential, keep-alive)", sequential.open),
    row("GET, auth: caller with an API key (sequential, keep-alive)", sequential.authenticated),
    {
      what: `authentication overhead p50 (target ≤ 1 ms): ${overheadP50 <= 1 ? "met" : "MISSED"}`,
      "p50 ms": overheadP50,
      "p99 ms": "",
      "req/s": "",
    },
    {
      what: "GET, no auth (load)",
      "p50 ms": openLoad.latency.p50,
      "p99 ms": openLoad.latency.p99,
      "req/s": openLoad.requests.average,
    },
    {
      what: "GET, auth: caller with an API key (load)",
      "p50 ms": authLoad.latency.p50,
      "p99 ms": authLoad.latency.p99,
      "req/s": authLoad.requests.average,
    },
  ],
);

agent.destroy();
await redis.del(...(await redis.keys(`${namespace}*`)));
await gateway.close();
