// Gateway overhead and idle memory.
// - Throughput and latency of /api/health (no backend call) and /api/health/ready (a Connect health call to each of
//   the seven domain services, in parallel), 10 connections.
// - What the gateway adds over the Connect call it makes: GET /api/auth/oauth/providers makes exactly one cheap call
//   (SsoService.ListProviders); timed one request at a time through the gateway and as the same call made directly,
//   so the difference of the p50s is the edge's own cost (routing, validation, logging, problem-free rendering).
import { readFileSync, readdirSync } from "node:fs";
import autocannon from "autocannon";
import { Health } from "@sca/proto/grpc/health/v1/health_pb.ts";
import { createServiceClient } from "@sca/rpc";
import { SsoService } from "@sca/proto/sca/identity/v1/sso_pb.ts";
import { SERVICES, rpcUrlFor, type ServiceName } from "@sca/runtime/services";
import { percentile, printTable } from "./table.ts";

const BASE = process.env.BENCH_BASE_URL ?? "http://127.0.0.1:8080";
const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = 10;

async function http(path: string, connections = CONNECTIONS) {
  const r = await autocannon({ url: `${BASE}${path}`, connections, duration: DURATION });
  if (r.non2xx > 0) throw new Error(`${path}: ${r.non2xx} non-2xx answers`);
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99 };
}

/** Times `once` over DURATION seconds with `concurrency` loops, after a warm-up. */
async function timed(once: () => Promise<unknown>, concurrency: number) {
  for (let i = 0; i < 200; i++) await once(); // warm connections and JIT
  const latencies: number[] = [];
  const end = Date.now() + DURATION * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < end) {
        const t = process.hrtime.bigint();
        await once();
        latencies.push(Number(process.hrtime.bigint() - t) / 1e6);
      }
    }),
  );
  return { rps: latencies.length / DURATION, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

function directReadiness() {
  const clients = (Object.keys(SERVICES) as ServiceName[]).map((s) => createServiceClient(Health, rpcUrlFor(s)));
  return timed(() => Promise.all(clients.map((c) => c.check({ service: "readiness" }))), CONNECTIONS);
}

function directProviders() {
  const sso = createServiceClient(SsoService, rpcUrlFor("identity"));
  return timed(() => sso.listProviders({}), 1);
}

/** Latency of one request at a time through the gateway, timed like the direct call (same client loop). */
function viaGateway(path: string) {
  return timed(async () => {
    const res = await fetch(`${BASE}${path}`);
    if (!res.ok) throw new Error(`${path}: ${res.status}`);
    await res.arrayBuffer();
  }, 1);
}

function idleRssMb(): Record<string, string | number>[] {
  const runDir = new URL("../.data/run/", import.meta.url);
  return readdirSync(runDir)
    .filter((f) => f.endsWith(".pid"))
    .map((f) => {
      const pid = readFileSync(new URL(f, runDir), "utf8").trim();
      const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
      const mb = Number(rss) / 1024;
      return { process: f.replace(".pid", ""), "idle RSS (MB)": mb, "target ≤ 150 MB": mb <= 150 ? "met" : "MISSED" };
    });
}

const memory = idleRssMb(); // before any load
await http("/api/health"); // warm-up
const health = await http("/api/health");
const ready = await http("/api/health/ready");
const direct = await directReadiness();
const providersViaGateway = await viaGateway("/api/auth/oauth/providers");
const providersDirect = await directProviders();
const overhead = providersViaGateway.p50 - providersDirect.p50;
printTable(`Gateway throughput (${CONNECTIONS} connections, ${DURATION} s each)`, [
  { what: "GET /api/health", "req/s": health.rps, "p50 ms": health.p50, "p99 ms": health.p99 },
  { what: "GET /api/health/ready (7 Connect calls)", "req/s": ready.rps, "p50 ms": ready.p50, "p99 ms": ready.p99 },
  { what: "the same 7 Connect calls, direct", "req/s": direct.rps, "p50 ms": direct.p50, "p99 ms": direct.p99 },
]);
printTable(`What the gateway adds over its Connect call (one request at a time, ${DURATION} s each)`, [
  {
    what: "GET /api/auth/oauth/providers",
    "req/s": providersViaGateway.rps,
    "p50 ms": providersViaGateway.p50,
    "p99 ms": providersViaGateway.p99,
  },
  {
    what: "SsoService.ListProviders, direct",
    "req/s": providersDirect.rps,
    "p50 ms": providersDirect.p50,
    "p99 ms": providersDirect.p99,
  },
  {
    what: `gateway overhead p50 (target ≤ 2 ms): ${overhead <= 2 ? "met" : "MISSED"}`,
    "req/s": "",
    "p50 ms": overhead,
    "p99 ms": "",
  },
]);
printTable("Idle resident memory", memory);
