// Repository webhook accepted to scan queued (issue 25; target: p99 at most 50 ms at 20 webhooks/s). The 202 of
// POST /api/v1/webhooks/scm_a is sent once the orchestrator has committed the queued scan and its job (docs/scm.md),
// so each answer's latency is the time from the webhook's due time to its scan queued.
//
// Offline: a portal of its own (@sca/testkit startPortalProcesses: every service and the gateway as processes, a fresh
// database, the test servers of scripts/env.sh), its team's concurrent-scan cap raised out of the way (every push
// queues a scan; the project's git_url is a closed loopback port, so the workers fail each scan at once). Host A
// pushes, each with its own delivery id, signed beforehand with @octokit/webhooks-methods (the signing is the
// host's work, not ours), sent at BENCH_RATE (20) a second for BENCH_SECONDS (20) after a 3 s warm-up, an even
// open-loop rate (bench/paced-load.ts). The load starts once the fresh portal's start-up work is done (the
// scanner-runner's import of the vendored advisory snapshot, which a deployment does once: tens of seconds of CPU
// that earlier runs measured the webhooks beside); BENCH_SETTLE=0 starts it at once, as before.
//
// Two variants, each with a portal of its own (BENCH_VARIANTS names the ones to run):
// - `runners-here`: the scanner-runner takes every job on the same two cores (each scan failing at once, its news
//   consumed by the other services): what the bench always measured;
// - `scans-held`: TASK_WORKER_AUTOMATIC_CONCURRENCY=0, so this portal's runner takes no webhook job and the scans stay
//   queued. In a deployment the runners are pods of their own (deploy/helm); this is the intake and the queued
//   scan's news without the runners' work on the same cores. Not the target's whole story: both are printed.
// Run: . scripts/env.sh && node bench/webhook-intake.ts
import { randomUUID } from "node:crypto";
import { sign } from "@octokit/webhooks-methods";
import { createDatabase, startPortalProcesses } from "@sca/testkit";
import { pacedLoad, latencyColumns, p99Verdict } from "./paced-load.ts";
import { Portal, redisDatabase } from "./portal.ts";
import { printTable } from "./table.ts";

const RATE = Number(process.env.BENCH_RATE ?? 20);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const TARGET_P99_MS = 50;

const VARIANTS: Record<string, { env: Record<string, string>; label: string }> = {
  "runners-here": { env: {}, label: "runners on the same cores" },
  "scans-held": { env: { TASK_WORKER_AUTOMATIC_CONCURRENCY: "0" }, label: "scans held queued (no runner takes them)" },
};
const chosen = (process.env.BENCH_VARIANTS ?? Object.keys(VARIANTS).join(",")).split(",").filter(Boolean);
for (const name of chosen) if (!VARIANTS[name]) throw new Error(`BENCH_VARIANTS: no variant ${name}`);

/**
 * Waits until every process of the fresh portal has been under a tenth of a core for three 2 s windows in a row (the
 * runner's advisory import done: on a loaded machine it waits on PostgreSQL, so one quiet window is not enough), at
 * most 3 minutes; answers the seconds waited.
 */
async function settle(portal: Awaited<ReturnType<typeof startPortalProcesses>>): Promise<number> {
  const started = Date.now();
  let before = portal.cpuSeconds();
  for (let quiet = 0; quiet < 3 && Date.now() - started < 180_000;) {
    await new Promise((r) => setTimeout(r, 2000));
    const now = portal.cpuSeconds();
    const busiest = Math.max(...Object.entries(now).map(([name, s]) => s - before[name as keyof typeof now]));
    quiet = busiest < 0.2 ? quiet + 1 : 0;
    before = now;
  }
  return (Date.now() - started) / 1000;
}

for (const name of chosen) await measure(name, VARIANTS[name]!);

async function measure(name: string, variant: { env: Record<string, string>; label: string }): Promise<void> {
  const database = await createDatabase("sca_bench");
  const portal = await startPortalProcesses({
    databaseUrl: database.url,
    label: "bench-webhooks",
    env: {
      ...Object.fromEntries(["KEV", "EPSS", "EOL", "MALICIOUS"].map((feed) => [`${feed}_REFRESH_ENABLED`, "false"])),
      REDIS_URL: redisDatabase(4),
      SCAN_MAX_CONCURRENT_PER_TEAM: "10000",
      // The load's own limit: 20 a second for a minute is over the default 120 a minute from one address.
      WEBHOOK_RATE_LIMIT: "100000/minute",
      ...variant.env,
    },
  });
  try {
    const waited = process.env.BENCH_SETTLE === "0" ? null : await settle(portal);
    const token = await portal.superAdmin();
    const api = Portal.withToken(portal.origin, token);
    const team = await api.team();
    const project = await api.project(team);
    const repo = `bench/hooked-${randomUUID().slice(0, 8)}`;
    const send = async (method: string, path: string, body: unknown) => {
      const res = await fetch(`${portal.origin}/api${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as Record<string, unknown>;
      if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };
    await send("PATCH", `/v1/projects/${project}`, { git_url: `http://127.0.0.1:9/${repo}.git` });
    const { secret } = (await send("POST", `/v1/projects/${project}/webhook`, { provider: "scm_a" })) as {
      secret: string;
    };

    const deliveries = async (count: number) =>
      Promise.all(
        Array.from({ length: count }, async (_, i) => {
          const body = Buffer.from(
            JSON.stringify({
              ref: "refs/heads/main",
              before: "0".repeat(40),
              after: randomUUID().replaceAll("-", "").padEnd(40, "a"),
              repository: { full_name: repo, clone_url: `http://127.0.0.1:9/${repo}.git` },
              pusher: { name: `pusher-${i}` },
            }),
          );
          return {
            headers: {
              "content-type": "application/json",
              "x-github-event": "push",
              "x-github-delivery": randomUUID(),
              "x-hub-signature-256": await sign(secret, body.toString("utf8")),
            },
            body,
          };
        }),
      );
    const url = `${portal.origin}/api/v1/webhooks/scm_a`;
    const warm = await deliveries(RATE * 3);
    await pacedLoad({ url, headers: {}, rate: RATE, seconds: 3, connections: 8, post: (i) => warm[i]! });
    const measured = await deliveries(Math.round(RATE * SECONDS));
    // Every process's CPU, with the children it waited for (the runner's tools, a cdxgen started ahead): each
    // queued scan's later life (the workers failing it, its news consumed by the other services) is load the portal
    // carries at this rate too, on the same two cores.
    const cpuOfEach = () => Object.entries(portal.cpuSeconds()).map(([name, s]) => [name, s * 1000] as const);
    const cpuBefore = new Map(cpuOfEach());
    const result = await pacedLoad({
      url,
      headers: {},
      rate: RATE,
      seconds: SECONDS,
      connections: 8,
      post: (i) => measured[i]!,
    });
    const n = Math.max(1, result.requests.total);
    const cpuPerRequest = Object.fromEntries(
      cpuOfEach().map(([name, ms]) => [name, (ms - cpuBefore.get(name)!) / n] as const),
    );
    const sum = (names: string[]) => names.reduce((total, name) => total + cpuPerRequest[name]!, 0);
    const others = Object.keys(cpuPerRequest).filter((name) => name !== "gateway" && name !== "scan-orchestrator");
    const settled = waited === null ? "load at once (BENCH_SETTLE=0)" : `load after ${waited.toFixed(0)} s settling`;
    printTable(`webhook accepted to scan queued (${RATE}/s for ${SECONDS} s), ${name}: ${variant.label}, ${settled}`, [
      {
        ...latencyColumns("paced", result),
        "gateway CPU ms/req": cpuPerRequest.gateway!,
        "orchestrator CPU ms/req": cpuPerRequest["scan-orchestrator"]!,
        "other services CPU ms/req": sum(others),
        ...p99Verdict(result, TARGET_P99_MS),
      },
    ]);
    printTable(`CPU ms per webhook answered, by process, during the load (${name})`, [cpuPerRequest]);
  } finally {
    await portal.stop();
    await database.drop();
  }
}
