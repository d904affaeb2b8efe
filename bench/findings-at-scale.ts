// A large SBOM through the whole portal beside OSV-Scanner on the same file (issue 24, parts 4 and 6): for 10,000
// and 50,000 components, our wall time from the upload request to the scan's findings listed against OSV-Scanner's
// offline run with a database of the same advisories (target: at most half of it), the two finding sets compared
// (OSV-Scanner's reproduced or not), and the resident memory of projects, scanner-runner and gateway while the
// SBOM goes through (target: peak at most 512 MiB) and a minute after (target: under 200 MiB).
//
// Offline: a portal of its own (every service and the gateway as processes, as ./dev up runs them, with their V8
// flags; a fresh database, topic prefix and artefact directory: @sca/testkit's startPortalProcesses) on the test
// servers of scripts/env.sh, the registry lookups off (no public registry is asked). Run:
//   . scripts/env.sh && node bench/findings-at-scale.ts
// The SBOM: the test kit's generated CycloneDX (licenses, hashes, a layered graph) whose `n` components are distinct
// purls of package names the vendored advisories (shared/data/osv) name, each at several versions (where an advisory
// starts, and 1.0.0, 2.0.0, ...), drawn with a fixed seed; the expected finding
// count is the runner's matcher's over the same purls (its fixture). Per size: a fresh project; upload, `sbom` scan,
// the component list then the finding list polled every 50 ms until their totals are the expected ones (stage
// columns from the scan's progress frames); then the idle minute; then OSV-Scanner. Once every size is through, our
// findings are read back (the project's OpenVEX export, one statement per open finding, up to 20,000 findings; the
// finding list's pages beyond) and compared pair by pair (a pair: a package version and a vulnerability named by any
// of its ids, as services/gateway/test/vulnerability-findings-e2e.test.ts compares them; Go and Maven names by their
// last segment). Each of ours OSV-Scanner leaves out is put down to the reason its advisory records give
// (bench/offline/osv-scanner-misses.ts); one no reason explains is a difference to look into.
// Memory: VmRSS of each process sampled every 100 ms during the run (and VmHWM, reset before each size through
// /proc/<pid>/clear_refs), then every second for BENCH_IDLE_SECONDS (60).
// Knobs: BENCH_SIZES (10000,50000), BENCH_IDLE_SECONDS (60), BENCH_KEEP_PORTAL=1 leaves the portal's logs (projects'
// at INFO: its stage lines),
// BENCH_MEMORY_TRACE=1 has the watched processes log their heap and external memory there (offline/memory-trace.ts);
// BENCH_CPU_PROF=<dir> has the services on a scan's path (gateway, scan-orchestrator, scanner-runner, projects) write
// a V8 CPU profile there as they stop (`--cpu-prof`; the warm-up and the idle minute included).
import { writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PackageURL } from "packageurl-js";
import { packageOfPurl } from "@sca/purl-package";
import {
  createDatabase,
  fixturesOf,
  generateCycloneDxBom,
  osvScannerFindings,
  startPortalProcesses,
} from "@sca/testkit";
import { advisoriesById, whyOsvScannerMisses } from "./offline/osv-scanner-misses.ts";
import { cpuMsOf, memoryOf, Portal, redisDatabase } from "./portal.ts";
import { printTable } from "./table.ts";

const SIZES = (process.env.BENCH_SIZES ?? "10000,50000").split(",").map(Number);
const IDLE_MS = Number(process.env.BENCH_IDLE_SECONDS ?? 60) * 1000;
const TARGET_PEAK_MIB = 512;
const TARGET_IDLE_MIB = 200;
const TARGET_RATIO = 0.5;
const WATCHED = ["projects", "scanner-runner", "gateway"] as const;

const matcher = await (await fixturesOf("scanner-runner")).vulnerabilityMatcher();
const advisories = advisoriesById(matcher.advisoriesDir);
const pool = matcher.samplePurls();

/** A deterministic pseudo-random pick of `n` distinct items. */
function pick<T>(items: T[], n: number, seed: number): T[] {
  let s = seed >>> 0 || 1;
  const chosen = new Set<number>();
  while (chosen.size < Math.min(n, items.length)) {
    s = (s * 1664525 + 1013904223) >>> 0;
    chosen.add(s % items.length);
  }
  return [...chosen].map((i) => items[i]!);
}

/**
 * `n` distinct purls of vulnerable package names at several versions, as the test kit's generated CycloneDX document
 * (licenses, hashes, a layered dependency graph) names its components.
 */
function sbomOf(n: number): { bytes: Buffer; expected: number } {
  const versions = ["", ...Array.from({ length: Math.ceil(n / pool.length) + 4 }, (_, i) => `${i + 1}.0.0`)];
  const versioned = versions.flatMap((v) =>
    pool.map((purl) => (v ? `${purl.slice(0, purl.lastIndexOf("@"))}@${v}` : purl)),
  );
  const purls = pick(versioned, n, n);
  const packages = purls.map((purl) => {
    const p = PackageURL.fromString(purl);
    return { purl, group: p.namespace ?? undefined, name: p.name, version: p.version ?? "" };
  });
  const bom = generateCycloneDxBom({ components: n, seed: n, packages });
  return { bytes: Buffer.from(JSON.stringify(bom)), expected: matcher.scanMatches(purls).findingCount };
}

/** Resets each process's VmHWM to its current RSS (Linux: "5" to clear_refs). */
function resetPeaks(pids: number[]): void {
  for (const pid of pids) writeFileSync(`/proc/${pid}/clear_refs`, "5");
}

/** Samples the processes' RSS every `everyMs` until stop(): each one's peak, and its last reading. */
function sampleRss(pids: number[], everyMs: number) {
  const peak = pids.map((pid) => memoryOf(pid).rss);
  const last = [...peak];
  const timer = setInterval(() => {
    pids.forEach((pid, i) => {
      last[i] = memoryOf(pid).rss;
      peak[i] = Math.max(peak[i]!, last[i]);
    });
  }, everyMs);
  return {
    peak,
    last,
    stop: () => clearInterval(timer),
  };
}

interface Pair {
  pkg: string;
  ids: Set<string>;
  /** Ours: the package as our matcher names it (for why OSV-Scanner leaves the pair out). */
  named?: { ecosystem: string; name: string; version: string };
}

/**
 * The package of a pair as both sides can name it: OSV-Scanner names an SBOM's Go module by its last path segment
 * (lower-cased) and a Maven package by its artifact when its advisories do not settle the full name
 * (docs/osv-oracle.md), so those two ecosystems compare by that last segment.
 */
function packageKey(ecosystem: string, name: string, version: string): string {
  const loose = ecosystem === "Go" || ecosystem === "Maven";
  return `${ecosystem}|${loose ? name.split(/[/:]/).pop()!.toLowerCase() : name}|${version}`;
}

/** OSV-Scanner's pairs we list too, and ours it does not (a pair matches one of the same package sharing an id). */
function compare(ours: Pair[], theirs: Pair[]): { reproduced: number; missed: Pair[]; extra: Pair[] } {
  const byPackage = (pairs: Pair[]) => {
    const m = new Map<string, Pair[]>();
    for (const p of pairs) m.set(p.pkg, [...(m.get(p.pkg) ?? []), p]);
    return m;
  };
  const ourIndex = byPackage(ours);
  const theirIndex = byPackage(theirs);
  const matches = (p: Pair, index: Map<string, Pair[]>) =>
    (index.get(p.pkg) ?? []).some((q) => [...p.ids].some((id) => q.ids.has(id)));
  const missed = theirs.filter((p) => !matches(p, ourIndex));
  return { reproduced: theirs.length - missed.length, missed, extra: ours.filter((p) => !matches(p, theirIndex)) };
}

const database = await createDatabase("sca_bench");
// BENCH_MEMORY_TRACE=1: each watched process logs its heap and external memory as its RSS moves (kept logs).
const trace = process.env.BENCH_MEMORY_TRACE
  ? `--max-semi-space-size=8 --import=${new URL("./offline/memory-trace.ts", import.meta.url).pathname}`
  : undefined;
// BENCH_CPU_PROF=<dir>: where each process on the scan's path spends its CPU, written as the portal stops.
const profileDir = process.env.BENCH_CPU_PROF;
const profiled = profileDir
  ? Object.fromEntries(
      (["gateway", "scan-orchestrator", "scanner-runner", "projects"] as const).map((name) => [
        name,
        // At INFO, projects logs where RecordScanMatches' time went (its stages).
        {
          NODE_OPTIONS: `--max-semi-space-size=8 --cpu-prof --cpu-prof-dir=${join(profileDir, name)}`,
          LOG_LEVEL: "INFO",
        },
      ]),
    )
  : // Kept logs: projects at INFO, whose `inventory ingested` and `scan matches recorded` lines give their stages.
    process.env.BENCH_KEEP_PORTAL
    ? { projects: { LOG_LEVEL: "INFO" } }
    : {};
const portal = await startPortalProcesses({
  databaseUrl: database.url,
  label: "bench",
  env: {
    // The feeds' refreshes would ask the public sources: the stored (vendored) data stays.
    ...Object.fromEntries(["KEV", "EPSS", "EOL", "MALICIOUS"].map((feed) => [`${feed}_REFRESH_ENABLED`, "false"])),
    // A Redis database of its own: the sign-in limit (5 a minute from 127.0.0.1) is not shared with the fuzzing
    // gate's portal.
    REDIS_URL: redisDatabase(3),
  },
  envOf: trace ? Object.fromEntries(WATCHED.map((name) => [name, { NODE_OPTIONS: trace }])) : profiled,
});
const work = await mkdtemp(join(tmpdir(), "sca-bench-scale-"));
const cleanUp = async () => {
  await portal.stop();
  await database.drop();
  await rm(work, { recursive: true, force: true });
  if (!process.env.BENCH_KEEP_PORTAL && !trace) await rm(portal.logDir, { recursive: true, force: true });
  else console.error(`portal logs: ${portal.logDir}`);
};
// Interrupted: the portal's processes and database go too (a second signal, as `timeout` forwards one, waits).
let interrupted = false;
for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.on(signal, () => {
    if (interrupted) return;
    interrupted = true;
    void cleanUp().finally(() => process.exit(130));
  });

const pids = WATCHED.map((name) => portal.pids[name]);
const speedRows: Record<string, string | number>[] = [];
const memoryRows: Record<string, string | number>[] = [];
const verdicts: string[] = [];
try {
  const api = Portal.withToken(portal.origin, await portal.superAdmin());
  const team = await api.team();
  // A warm-up of 1,000 components (JIT, connection pools), not counted.
  const warm = sbomOf(1000);
  const warmed = await api.ingest(await api.project(team), warm.bytes, 1000, 50, warm.expected);
  // Its late stages (licenses, component states) end before the measured runs: they ran beside the 10,000's upload.
  await api.scanEnded(warmed.scanId);
  const runs = [];
  for (const n of SIZES) {
    const sbom = sbomOf(n);
    const path = join(work, `sbom-${n}.cdx.json`);
    writeFileSync(path, sbom.bytes);
    const project = await api.project(team);
    const before = pids.map((pid) => memoryOf(pid).rss);
    resetPeaks(pids);
    const during = sampleRss(pids, 100);
    const cpuBefore = pids.map(cpuMsOf);
    const timing = await api.ingest(project, sbom.bytes, n, 50, sbom.expected);
    const cpu = pids.map((pid, i) => cpuMsOf(pid) - cpuBefore[i]!);
    during.stop();
    const hwm = pids.map((pid) => memoryOf(pid).hwm);
    // The idle minute: when each process first went under the target, and where it is at the end.
    const idle = sampleRss(pids, 1000);
    const idleStart = Date.now();
    const under = pids.map(() => NaN);
    const watchUnder = setInterval(() => {
      idle.last.forEach((rss, i) => {
        if (Number.isNaN(under[i]!) && rss < TARGET_IDLE_MIB) under[i] = (Date.now() - idleStart) / 1000;
      });
    }, 1000);
    await new Promise((r) => setTimeout(r, IDLE_MS));
    clearInterval(watchUnder);
    idle.stop();
    const idleEnd = pids.map((pid) => memoryOf(pid).rss);
    WATCHED.forEach((name, i) =>
      memoryRows.push({
        components: n,
        process: name,
        "RSS before": before[i]!,
        "peak RSS (100 ms samples)": during.peak[i]!,
        "VmHWM of the run": hwm[i]!,
        // What the run cost the process whatever else shared the cores (the wall times do not say).
        "CPU s of the run": cpu[i]! / 1000,
        [`RSS after ${IDLE_MS / 1000} s idle`]: idleEnd[i]!,
        [`under ${TARGET_IDLE_MIB} MiB after s`]: Number.isNaN(under[i]!) ? "never" : under[i]!,
      }),
    );
    const osv = await osvScannerFindings({ sbom: path }, { advisoriesDir: matcher.advisoriesDir });
    const findingsMs = timing.findingsMs!;
    const ratio = findingsMs / osv.durationMs;
    // The comparison's columns are filled once the findings are read back.
    const row: Record<string, string | number> = {
      components: n,
      "SBOM MB": sbom.bytes.byteLength / 2 ** 20,
      "ours: findings": timing.findings!,
      "ours: wall ms (upload to findings listed)": findingsMs,
      "components listed ms": timing.totalMs,
      "queued/fetch/read/artefact/ingest/record ms": ["queued", "fetch", "read", "artefact", "ingest", "record"]
        .map((k) => timing.stages[k as keyof typeof timing.stages] ?? "–")
        .join("/"),
      "osv-scanner: findings": osv.read ? osv.findings.length : `not read: ${osv.reason}`,
      "osv-scanner: wall ms": osv.durationMs,
      "osv-scanner: peak MiB": Math.round(osv.peakRssKiB / 1024),
      "ours / osv-scanner": ratio,
      "osv-scanner's reproduced": "not compared",
      "ours not in osv-scanner's": "",
    };
    speedRows.push(row);
    runs.push({ n, project, osv, row });
    verdicts.push(
      `${n} components: ours ${(findingsMs / 1000).toFixed(1)} s against OSV-Scanner's ${(osv.durationMs / 1000).toFixed(1)} s, ` +
        `ratio ${ratio.toFixed(2)} (target <= ${TARGET_RATIO}: ${ratio <= TARGET_RATIO ? "met" : "MISSED"})`,
    );
    const peakOk = WATCHED.every((_, i) => Math.max(during.peak[i]!, hwm[i]!) <= TARGET_PEAK_MIB);
    const idleOk = WATCHED.every((_, i) => idleEnd[i]! < TARGET_IDLE_MIB);
    verdicts.push(
      `${n} components: peak <= ${TARGET_PEAK_MIB} MiB ${peakOk ? "met" : "MISSED"}; ` +
        `idle < ${TARGET_IDLE_MIB} MiB after ${IDLE_MS / 1000} s ${idleOk ? "met" : "MISSED"}`,
    );
  }
  // The finding sets, read back once every size's memory was measured (the export is a request of its own).
  for (const { n, project, osv, row } of runs) {
    // The export of tens of thousands of findings outlasts the gateway's call deadline on a loaded machine, and
    // projects goes on building it after the gateway gave up: the list's pages then.
    const ours = (await api.openFindings(project, Number(row["ours: findings"]) <= 20_000)).map((f) => {
      const named = packageOfPurl(f.purl);
      const pv = named.kind === "package" ? named.package : { ecosystem: "?", name: f.purl, version: "" };
      return { pkg: packageKey(pv.ecosystem, pv.name, pv.version), ids: new Set(f.ids), named: pv };
    });
    const theirs = osv.findings.map((f) => ({
      pkg: packageKey(f.ecosystem, f.advisoryName ?? f.name, f.version),
      ids: new Set([...f.ids, ...f.aliases]),
    }));
    const { reproduced, missed, extra } = compare(ours, theirs);
    row["osv-scanner's reproduced"] = `${reproduced} of ${theirs.length}`;
    // Each of ours that OSV-Scanner leaves out, by the reason its advisory records give (bench/offline/osv-scanner-misses.ts).
    const reasons = new Map<string, number>();
    for (const p of extra) {
      const why = (p.named && whyOsvScannerMisses(advisories, p.named, p.ids)) ?? "unexplained";
      reasons.set(why, (reasons.get(why) ?? 0) + 1);
    }
    const unexplained = reasons.get("unexplained") ?? 0;
    row["ours not in osv-scanner's"] = `${extra.length} (${[...reasons].map(([k, c]) => `${k} ${c}`).join(", ")})`;
    // Which packages the differences are of (the most frequent first), beside the table's two last columns.
    const names = (pairs: Pair[]) => {
      const counts = new Map<string, number>();
      for (const p of pairs) {
        const name = p.pkg.split("|").slice(0, 2).join("|");
        counts.set(name, (counts.get(name) ?? 0) + 1);
      }
      return [...counts]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 8)
        .map(([k, c]) => `${k} ${c}`)
        .join(", ");
    };
    // OSV-Scanner's own misreading (bench/offline/osv-scanner-misses.ts, `go-module-named-go`): a Go module whose
    // path ends in `/go` is looked up as the standard library at the module's version, so its pair is `Go|stdlib|v`
    // where ours holds that module at v (and no stdlib component of that version, or ours would hold that pair too).
    const goModuleVersions = new Set(
      ours.filter((p) => p.named?.ecosystem === "Go" && p.named.name.endsWith("/go")).map((p) => p.named.version),
    );
    const misread = missed.filter((p) => {
      const [ecosystem, name, version] = p.pkg.split("|");
      return ecosystem === "Go" && name === "stdlib" && goModuleVersions.has(version!);
    });
    const notOurs = missed.length - misread.length;
    if (missed.length) console.error(`${n}: OSV-Scanner's, not ours, by package: ${names(missed)}`);
    if (extra.length) console.error(`${n}: ours, not OSV-Scanner's, by package: ${names(extra)}`);
    verdicts.push(
      `${n} components: OSV-Scanner's findings ${notOurs === 0 ? "reproduced" : `NOT reproduced (${notOurs} missing)`}` +
        (misread.length
          ? ` (besides ${misread.length} it makes of \`.../go\` modules read as the standard library)`
          : ""),
      `${n} components: ours not in OSV-Scanner's ${unexplained === 0 ? "all explained" : `${unexplained} UNEXPLAINED`}`,
    );
  }
} catch (err) {
  console.error(err);
  process.exitCode = 1;
} finally {
  await cleanUp();
}
printTable(
  `A generated SBOM through the whole portal (upload, scan, ingestion, matching, findings listed) beside OSV-Scanner offline on the same file with the same ${matcher.advisoryCount} advisories`,
  speedRows,
);
printTable(
  `Resident memory (MiB) while the SBOM goes through, and ${IDLE_MS / 1000} s after (targets: peak <= ${TARGET_PEAK_MIB}, idle < ${TARGET_IDLE_MIB})`,
  memoryRows,
);
console.log(`\n${verdicts.join("\n")}`);
