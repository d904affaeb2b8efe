// Gateway overhead: /api/health (no backend call) and /api/health/ready (one Connect health call to each domain
// service, in parallel) through the gateway, against the same Connect calls made directly; and idle memory.
import { readFileSync, readdirSync } from "node:fs";
import autocannon from "autocannon";
import { Health } from "@sca/proto/grpc/health/v1/health_pb.ts";
import { createServiceClient } from "@sca/rpc";
import { SERVICES, rpcUrlFor, type ServiceName } from "@sca/runtime/services";
import { percentile, printTable } from "./table.ts";

const BASE = process.env.BENCH_BASE_URL ?? "http://127.0.0.1:8080";
const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = 10;

async function http(path: string) {
  const r = await autocannon({ url: `${BASE}${path}`, connections: CONNECTIONS, duration: DURATION });
  if (r.non2xx > 0) throw new Error(`${path}: ${r.non2xx} non-2xx answers`);
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99 };
}

async function directReadiness() {
  const clients = (Object.keys(SERVICES) as ServiceName[]).map((s) => createServiceClient(Health, rpcUrlFor(s)));
  const once = () => Promise.all(clients.map((c) => c.check({ service: "readiness" })));
  for (let i = 0; i < 200; i++) await once(); // warm connections
  const latencies: number[] = [];
  const end = Date.now() + DURATION * 1000;
  await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
    while (Date.now() < end) {
      const t = process.hrtime.bigint();
      await once();
      latencies.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
  }));
  return { rps: latencies.length / DURATION, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

function idleRssMb(): Record<string, string | number>[] {
  const runDir = new URL("../.data/run/", import.meta.url);
  return readdirSync(runDir).filter((f) => f.endsWith(".pid")).map((f) => {
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
const overhead = ready.p50 - direct.p50;
printTable(`Gateway (${CONNECTIONS} connections, ${DURATION} s each)`, [
  { what: "GET /api/health", "req/s": health.rps, "p50 ms": health.p50, "p99 ms": health.p99 },
  { what: "GET /api/health/ready (7 Connect calls)", "req/s": ready.rps, "p50 ms": ready.p50, "p99 ms": ready.p99 },
  { what: "the same 7 Connect calls, direct", "req/s": direct.rps, "p50 ms": direct.p50, "p99 ms": direct.p99 },
  { what: `gateway overhead p50 (target ≤ 2 ms): ${overhead <= 2 ? "met" : "MISSED"}`, "req/s": "", "p50 ms": overhead, "p99 ms": "" },
]);
printTable("Idle resident memory", memory);
