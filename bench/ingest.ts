// SBOM upload to components queryable, through the gateway (target: at most 5 s for 10,000 components), and the
// resident memory of scanner-runner and projects while ingesting 50,000.
//
// Each run is what a client does on a fresh project: POST the SBOM to /sbom-uploads, POST an `sbom` scan, then poll
// the component list (limit=1, every 20 ms) until its total is the expected count; the clock runs from the upload
// request to that answer. Cases: the largest real SBOM of ../shared/data/sbom (by bytes) and the one with the most
// components (by SOURCES.md), and generated CycloneDX documents of 10,000 and 50,000 components with a realistic
// graph (@sca/testkit's generator: npm-like purls, licenses, hashes, a layered graph with a few cycles).
// The stage columns come from the scan's progress frames on /ws/scans/{scan_id}, whose `ts` is the moment the
// worker reached the stage: queued (scan created until the worker started: outbox, Kafka), fetch (the upload read
// back and its SHA-256 checked), read (parsing and resolving the graph), artefact (the inventory artefact encoded and
// written), ingest (projects' IngestInventory: the artefact streamed and decoded, COPY of components and edges,
// commit), tail (that frame until the list answered the total: negative when the list saw it first).
// Memory: VmRSS of both processes sampled every 50 ms during the 50,000-component runs, and their VmHWM (peak since
// start) after them; the pids are those ./dev up records.
// Knobs: BENCH_RUNS (default 5), BENCH_RUNS_LARGE (runs of the 50,000, default 3), ADMIN_EMAIL/ADMIN_PASSWORD.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { generateCycloneDxBom, sharedDir } from "@sca/testkit";
import { memoryOf, pidOf, Portal, type IngestTiming } from "./portal.ts";
import { percentile, printTable } from "./table.ts";

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const RUNS_LARGE = Number(process.env.BENCH_RUNS_LARGE ?? 3);
const TARGET_10K_MS = 5000;

const sbomDir = join(sharedDir(), "data", "sbom");

function largestByBytes(): string {
  const files = readdirSync(sbomDir, { recursive: true, encoding: "utf8" })
    .map((f) => join(sbomDir, f))
    .filter((f) => statSync(f).isFile() && !f.endsWith(".md"));
  return files.sort((a, b) => statSync(b).size - statSync(a).size)[0]!;
}

/** The file with the most components/packages in SOURCES.md's table. */
function mostComponents(): string {
  const rows = readFileSync(join(sbomDir, "SOURCES.md"), "utf8")
    .split("\n")
    .map((line) => line.split("|").map((c) => c.trim()))
    .filter((cells) => cells.length > 4 && /^\d+$/.test(cells[3]!));
  const top = rows.sort((a, b) => Number(b[3]) - Number(a[3]))[0]!;
  return join(sbomDir, top[1]!);
}

interface Case {
  what: string;
  sbom: Buffer;
  expected?: number;
  runs: number;
}

const median = (xs: number[]) => percentile(xs, 50);

async function runCase(portal: Portal, team: string, c: Case, onEachRun?: () => void): Promise<IngestTiming[]> {
  const timings: IngestTiming[] = [];
  // One warm-up run (JIT, connection pools), not counted.
  await portal.ingest(await portal.project(team), c.sbom, c.expected);
  for (let i = 0; i < c.runs; i++) {
    onEachRun?.();
    timings.push(await portal.ingest(await portal.project(team), c.sbom, c.expected));
  }
  return timings;
}

function row(c: Case, timings: IngestTiming[]): Record<string, string | number> {
  const totals = timings.map((t) => t.totalMs);
  const stage = (pick: (t: IngestTiming) => number | undefined) => {
    const xs = timings.map(pick).filter((x): x is number => x !== undefined);
    return xs.length === 0 ? "–" : median(xs);
  };
  const components = timings[0]!.components;
  return {
    what: c.what,
    components,
    MB: c.sbom.byteLength / 2 ** 20,
    runs: timings.length,
    "median ms": median(totals),
    "max ms": Math.max(...totals),
    upload: stage((t) => t.uploadMs),
    create: stage((t) => t.createMs),
    queued: stage((t) => t.stages.queued),
    fetch: stage((t) => t.stages.fetch),
    read: stage((t) => t.stages.read),
    artefact: stage((t) => t.stages.artefact),
    ingest: stage((t) => t.stages.ingest),
    tail: stage((t) => t.tailMs),
  };
}

const portal = await Portal.signIn();
const team = await portal.team();
const generated = (n: number) => Buffer.from(JSON.stringify(generateCycloneDxBom({ components: n, seed: n })));
const byBytes = largestByBytes();
const byCount = mostComponents();
const cases: Case[] = [
  { what: `real, largest file: ${byBytes.slice(sbomDir.length + 1)}`, sbom: readFileSync(byBytes), runs: RUNS },
  ...(byCount === byBytes
    ? []
    : [
        {
          what: `real, most components: ${byCount.slice(sbomDir.length + 1)}`,
          sbom: readFileSync(byCount),
          runs: RUNS,
        },
      ]),
  { what: "generated 10,000", sbom: generated(10_000), expected: 10_000, runs: RUNS },
];
const rows = [];
for (const c of cases) rows.push(row(c, await runCase(portal, team, c)));

// The 50,000 with the two processes' memory sampled.
const watched = ["scanner-runner", "projects"].map((name) => ({ name, pid: pidOf(name) }));
const before = watched.map((w) => memoryOf(w.pid).rss);
const peak = watched.map(() => 0);
const sampler = setInterval(() => watched.forEach((w, i) => (peak[i] = Math.max(peak[i]!, memoryOf(w.pid).rss))), 50);
const large: Case = { what: "generated 50,000", sbom: generated(50_000), expected: 50_000, runs: RUNS_LARGE };
rows.push(row(large, await runCase(portal, team, large)));
clearInterval(sampler);

const ten = rows.find((r) => r.what === "generated 10,000")!;
printTable(
  `SBOM upload to components queryable through the gateway (ms; ${RUNS} runs each after a warm-up, ${RUNS_LARGE} for 50,000; stage columns are medians)`,
  rows,
);
const verdict = (ms: number) => (ms <= TARGET_10K_MS ? "met" : "MISSED");
console.log(
  `\ntarget: generated 10,000 within ${TARGET_10K_MS} ms: median ${ten["median ms"]} ms ` +
    `(${verdict(Number(ten["median ms"]))}), max ${ten["max ms"]} ms (${verdict(Number(ten["max ms"]))})`,
);
printTable(
  "Resident memory while ingesting 50,000 components (MiB)",
  watched.map((w, i) => ({
    process: w.name,
    "RSS before": before[i]!,
    "peak RSS sampled (50 ms)": peak[i]!,
    "VmHWM after (peak since start)": memoryOf(w.pid).hwm,
  })),
);
