// The scanner-runner of bench/rematch.ts in a process of its own (so its memory is its own): a fresh schema, the
// vendored advisory snapshot imported at start (the "refresh" that changes every advisory), refresh propagation and
// scan jobs as in production (the bench publishes them onto the runner's lane). It reports on stdout, one JSON line
// each: the re-match queue filling and emptying (the propagation's stage lines between), its resident memory (sampled every 50 ms, and VmHWM), and its CPU
// time. It starts the runner through the test kit, whose own modules (about 9 MiB) count in its memory; the
// servers come from the environment.
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { createLogger } from "@sca/log";
import { applyHeapGrowth } from "@sca/runtime";
import { fixturesOf, startService } from "@sca/testkit";

/** The named keys of this process's environment that are set. */
const passedThrough = (keys: string[]) =>
  Object.fromEntries(keys.flatMap((k) => (process.env[k] === undefined ? [] : [[k, process.env[k]]])));
// Each report carries the runner's CPU time so far (user + system, ms): what a stage cost it, whatever the load.
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const say = (o: Record<string, unknown>) =>
  process.stdout.write(`${JSON.stringify({ at: Date.now(), cpuMs: cpuMs(), ...o })}\n`);
const hwm = () => Number(/VmHWM:\s+(\d+)/.exec(readFileSync("/proc/self/status", "utf8"))?.[1] ?? 0) / 1024;

// The heap growth runService applies in production (the definition's heapGrowth); BENCH_RUNNER_HEAP_GROWTH=off leaves
// V8's default (the before/after pair).
const { service: runnerDefinition } = await import("../../services/scanner-runner/src/service.ts");
if (runnerDefinition.heapGrowth && process.env.BENCH_RUNNER_HEAP_GROWTH !== "off")
  applyHeapGrowth(runnerDefinition.heapGrowth);
let peak = 0;
const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss / 2 ** 20)), 50);
const schema = process.env.BENCH_RUNNER_SCHEMA!;
say({ event: "starting", rssMiB: process.memoryUsage().rss / 2 ** 20 });
// Warnings and errors, and the re-match's stage lines (refresh-propagation.ts), reach the bench on stdout.
const REPORTED = /"level":"(warn|error|fatal)"|"msg":"(re-match batch recorded|refreshed data reached the findings)"/;
const instance = await startService("scanner-runner", {
  schema,
  logger: createLogger("scanner-runner-bench", "INFO", {
    write: (line: string) => void (REPORTED.test(line) && process.stdout.write(line)),
  }),
  env: {
    ARTEFACT_DIR: process.env.BENCH_ARTEFACT_DIR!,
    PROJECTS_RPC_URL: process.env.BENCH_PROJECTS_URL!,
    KEV_REFRESH_ENABLED: "false",
    EPSS_REFRESH_ENABLED: "false",
    EOL_REFRESH_ENABLED: "false",
    MALICIOUS_REFRESH_ENABLED: "false",
    // The registry lookups as the shell sets them, on by default as in production (the test kit turns them off):
    // the service's configuration reads only this env, not the process's.
    LICENSE_FETCH_ENABLED: "true",
    CURRENCY_ENABLED: "true",
    ...passedThrough([
      "LICENSE_FETCH_ENABLED",
      "LICENSE_FETCH_STAGE_SECONDS",
      "CURRENCY_ENABLED",
      "CURRENCY_LOOKUP_STAGE_SECONDS",
      "REGISTRY_LOOKUP_WAIT_SECONDS",
      // bench/rematch.ts's local registry (offline/slow-registry.ts).
      ...["NPM", "PYPI", "CRATES", "GO", "NUGET", "RUBYGEMS", "MAVEN"].map((r) => `PACKAGE_REGISTRY_${r}_URL`),
    ]),
  },
});
say({ event: "started", rssMiB: process.memoryUsage().rss / 2 ** 20 });

// The queue: filled by the import's commit, emptied by the propagation.
const fixtures = await fixturesOf("scanner-runner");
let seen = false;
for (;;) {
  const n = await fixtures.startUpProgress(instance.orm).then(
    (p) => p.rematchPending,
    () => 0,
  );
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
  const word = line.trim();
  if (word === "memory") {
    // The peak since the last report, so that each scan's own peak is told apart.
    say({ event: "memory", peakRssMiB: peak, hwmMiB: hwm() });
    peak = process.memoryUsage().rss / 2 ** 20;
  } else if (word === "stop") break;
}
clearInterval(sampler);
await instance.close();
process.exit(0);
