// The scanner-runner of bench/rematch.ts in a process of its own (so its memory is its own): a fresh schema, the
// vendored advisory snapshot imported at start (the "refresh" that changes every advisory), refresh propagation and
// scan jobs as in production. It reports on stdout, one JSON line each: the re-match queue filling and emptying,
// its resident memory (sampled every 50 ms, and VmHWM), and on a line "scan <projectId> <key> <bytes> <sha256>" on
// stdin it publishes that SBOM's scan job onto its manual lane.
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { createLogger } from "@sca/log";
import { startServiceInstance } from "@sca/runtime";
import { TEST_SECRET, testServers } from "@sca/testkit";
import { service } from "../../services/scanner-runner/src/service.ts";
import { rematchPendingCount } from "../../services/scanner-runner/src/store/pending-refreshes.ts";
import { publishJobs, scanJob } from "../../services/scanner-runner/test/support/scan-jobs.ts";

/** The named keys of this process's environment that are set. */
const passedThrough = (keys: string[]) =>
  Object.fromEntries(keys.flatMap((k) => (process.env[k] === undefined ? [] : [[k, process.env[k]]])));
const say = (o: Record<string, unknown>) => process.stdout.write(`${JSON.stringify({ at: Date.now(), ...o })}\n`);
const hwm = () => Number(/VmHWM:\s+(\d+)/.exec(readFileSync("/proc/self/status", "utf8"))?.[1] ?? 0) / 1024;

let peak = 0;
const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss / 2 ** 20)), 50);
const servers = testServers();
const schema = process.env.BENCH_RUNNER_SCHEMA!;
say({ event: "starting", rssMiB: process.memoryUsage().rss / 2 ** 20 });
const instance = await startServiceInstance(service, {
  migrate: true,
  relayPollIntervalMs: 100,
  schema,
  logger: createLogger("scanner-runner-bench", "WARN"),
  env: {
    DATABASE_URL: servers.databaseUrl,
    KAFKA_BROKERS: servers.kafkaBrokers.join(","),
    KAFKA_TOPIC_PREFIX: `${schema}.`,
    SECRET_KEY: TEST_SECRET,
    APP_ENV: "dev",
    RPC_PORT: "0",
    ARTEFACT_DIR: process.env.BENCH_ARTEFACT_DIR!,
    PROJECTS_RPC_URL: process.env.BENCH_PROJECTS_URL!,
    KEV_REFRESH_ENABLED: "false",
    EPSS_REFRESH_ENABLED: "false",
    EOL_REFRESH_ENABLED: "false",
    MALICIOUS_REFRESH_ENABLED: "false",
    // The registry lookups as the shell sets them (on by default, against the public registries): the service's
    // configuration reads only this env, not the process's.
    ...passedThrough([
      "LICENSE_FETCH_ENABLED",
      "LICENSE_FETCH_STAGE_SECONDS",
      "CURRENCY_ENABLED",
      "CURRENCY_LOOKUP_STAGE_SECONDS",
      // bench/rematch.ts's local registry (offline/slow-registry.ts).
      ...["NPM", "PYPI", "CRATES", "GO", "NUGET", "RUBYGEMS", "MAVEN"].map((r) => `PACKAGE_REGISTRY_${r}_URL`),
    ]),
  },
});
say({ event: "started", rssMiB: process.memoryUsage().rss / 2 ** 20 });

// The queue: filled by the import's commit, emptied by the propagation.
let seen = false;
for (;;) {
  const n = await rematchPendingCount(instance.orm.em.fork()).catch(() => 0);
  if (n > 0 && !seen) {
    seen = true;
    say({ event: "queued", packages: n });
  }
  if (n === 0 && seen) break;
  await new Promise((r) => setTimeout(r, 100));
}
say({ event: "drained", peakRssMiB: peak, hwmMiB: hwm() });
peak = process.memoryUsage().rss / 2 ** 20;

for await (const line of createInterface({ input: process.stdin })) {
  const [word, projectId, key, size, sha256] = line.trim().split(" ");
  if (word === "scan") {
    const job = scanJob({
      lane: "manual",
      projectId: projectId!,
      sbom: { $typeName: "sca.events.v1.ScanArtefact", key: key!, sizeBytes: BigInt(size!), sha256: sha256! },
    });
    await publishJobs(instance.kafka!, "manual", [job]);
    say({ event: "published", scanId: job.scanId });
  } else if (word === "memory") say({ event: "memory", peakRssMiB: peak, hwmMiB: hwm() });
  else if (word === "stop") break;
}
clearInterval(sampler);
await instance.close(1000);
process.exit(0);
