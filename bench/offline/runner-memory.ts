// Where the scanner-runner's resident memory goes at start (`node --expose-gc --max-semi-space-size=8
// bench/offline/runner-memory.ts`, the NODE_OPTIONS the runner runs with): the runner started in this process on a fresh schema (the vendored advisory
// set imported as on a fresh install, the enrichment feeds' vendored snapshots loaded), process.memoryUsage() printed
// as it goes, then the same after a full garbage collection (what is live against what V8 kept) and, with
// BENCH_HEAP_SNAPSHOT=<file>, a heap snapshot to open in DevTools. No projects service: nothing to re-match.
import { readFileSync } from "node:fs";
import { writeHeapSnapshot } from "node:v8";
import { createLogger } from "@sca/log";
import { applyHeapGrowth } from "@sca/runtime";
import { fixturesOf, startService } from "@sca/testkit";

// The heap growth runService applies in production (the definition's heapGrowth); BENCH_RUNNER_HEAP_GROWTH=off leaves
// V8's default (the before/after pair).
const { service: runnerDefinition } = await import("../../services/scanner-runner/src/service.ts");
if (runnerDefinition.heapGrowth && process.env.BENCH_RUNNER_HEAP_GROWTH !== "off")
  applyHeapGrowth(runnerDefinition.heapGrowth);
const mib = (n: number) => Math.round(n / 2 ** 20);
const hwm = () => Number(/VmHWM:\s+(\d+)/.exec(readFileSync("/proc/self/status", "utf8"))?.[1] ?? 0) / 1024;
const t0 = Date.now();
const report = (what: string) => {
  const u = process.memoryUsage();
  console.log(
    JSON.stringify({
      what,
      s: ((Date.now() - t0) / 1000).toFixed(1),
      rss: mib(u.rss),
      heapTotal: mib(u.heapTotal),
      heapUsed: mib(u.heapUsed),
      external: mib(u.external),
      arrayBuffers: mib(u.arrayBuffers),
      hwm: Math.round(hwm()),
    }),
  );
};
report("process");
// Every 100 ms from the start, a line when RSS moved by 16 MiB or more (what grew it, by its timing).
let lastRss = 0;
const tracer = setInterval(() => {
  const rss = process.memoryUsage().rss;
  if (Math.abs(rss - lastRss) >= 16 * 2 ** 20) {
    lastRss = rss;
    report("moved");
  }
}, 100);
// Through the test kit (its modules, about 9 MiB, are in the "process" line): a schema and topics of its own.
const instance = await startService("scanner-runner", {
  logger: createLogger("scanner-runner-memory", process.env.BENCH_LOG_LEVEL ?? "WARN"),
  env: {
    PROJECTS_RPC_URL: "http://127.0.0.1:9",
    KEV_REFRESH_ENABLED: "false",
    EPSS_REFRESH_ENABLED: "false",
    EOL_REFRESH_ENABLED: "false",
    MALICIOUS_REFRESH_ENABLED: "false",
  },
});
report("started");
const sampler = setInterval(() => report("sample"), 1000);
const fixtures = await fixturesOf("scanner-runner");
while (
  !(await fixtures.startUpProgress(instance.orm).then(
    (p) => p.imported,
    () => false,
  ))
)
  await new Promise((r) => setTimeout(r, 200));
report("imported");
await new Promise((r) => setTimeout(r, Number(process.env.BENCH_SETTLE_MS ?? 5000)));
clearInterval(sampler);
clearInterval(tracer);
report("settled");
const gc = (globalThis as { gc?: () => void }).gc;
if (gc) {
  gc();
  gc();
  report("after full gc");
}
// Where the resident pages are: anonymous or file-backed, and the largest mappings.
await new Promise((r) => setTimeout(r, 3000));
report("3 s after gc");
const status = readFileSync("/proc/self/status", "utf8");
console.log(
  status
    .split("\n")
    .filter((l) => /^(VmRSS|RssAnon|RssFile|RssShmem|VmHWM)/.test(l))
    .join("  "),
);
if (process.env.BENCH_SMAPS) {
  const maps: { name: string; rss: number }[] = [];
  let current = "";
  for (const line of readFileSync("/proc/self/smaps", "utf8").split("\n")) {
    const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) current = `${line.split(" ")[0]} ${head[1] || "[anon]"}`;
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) maps.push({ name: current, rss: Number(rss[1]) / 1024 });
  }
  maps.sort((a, b) => b.rss - a.rss);
  for (const m of maps.slice(0, 25)) console.log(m.rss.toFixed(1).padStart(8), m.name);
}
if (process.env.BENCH_HEAP_SNAPSHOT) writeHeapSnapshot(process.env.BENCH_HEAP_SNAPSHOT);
await instance.close();
process.exit(0);
