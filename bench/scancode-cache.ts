// The scancode stage (docs/scancode.md) over a real tree with a cold content cache and with a warm one: an npm
// package from the pnpm store (pino, 200 files; BENCH_TREE names another directory), copied into a sandbox
// workspace and read by the real scancode, as a source scan's stage runs it (the scanner-runner's sandboxTree fixture). Cold: scancode_file_results empty, every
// content read. Warm: the same tree again (scancode not started). One file changed: only that content read.
// Offline (no portal needed), with the test servers' environment: node bench/scancode-cache.ts
import { readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fixturesOf, scancodeBin, startService } from "@sca/testkit";
import { printTable } from "./table.ts";

const RUNS = Number(process.env.BENCH_RUNS ?? 2);

async function pinoDir(): Promise<string> {
  const store = join(import.meta.dirname, "..", "node_modules", ".pnpm");
  const entry = (await readdir(store)).find((name) => name.startsWith("pino@"));
  if (!entry) throw new Error("no pino in node_modules/.pnpm: set BENCH_TREE");
  return join(store, entry, "node_modules", "pino");
}

const source = process.env.BENCH_TREE ?? (await pinoDir());
const runner = await startService("scanner-runner", { listen: false, env: { CURRENCY_ENABLED: "false" } });
const fixtures = await fixturesOf("scanner-runner");
const tree = await fixtures.sandboxTree(source);
const settings = {
  bin: process.env.SCANCODE_BIN ?? scancodeBin(),
  timeoutMs: 3_600_000,
  memoryMb: 4096,
  maxFiles: 20_000,
  maxDetections: 5000,
};
const rows: Record<string, string | number>[] = [];
try {
  const stage = async (label: string) => {
    const started = performance.now();
    const found = await tree.licenses(runner.orm, settings);
    const ms = performance.now() - started;
    if (found.status !== "completed") throw new Error(`${label}: ${found.status}: ${found.message}`);
    rows.push({
      run: label,
      files: found.fileCount,
      "files read by scancode": found.scannedFileCount,
      detections: found.detectionCount,
      "stage s": ms / 1000,
    });
  };
  for (let r = 1; r <= RUNS; r++) {
    await fixtures.forgetScancodeResults(runner.orm);
    await stage(`cold ${r}`);
  }
  for (let r = 1; r <= RUNS; r++) await stage(`warm ${r}`);
  await writeFile(join(tree.dir, "bench-changed.js"), `// SPDX-License-Identifier: MIT\n// ${Date.now()}\n`);
  await stage("warm, one file added");
} finally {
  await tree.remove();
  await runner.close();
}
printTable(`scancode stage on ${source.split("node_modules/").pop()} (cold vs warm content cache)`, rows);
