// Run once in each jest worker process before its first test file (jest.config.js `setupFiles`; the workers are
// jest-light-runner's: test files load as Node loads modules, once per worker, not once per file).
// - `@jest/globals` resolves to jest-globals.ts: the package itself only throws outside jest's own environment.
// - What each test file cost the CPU is noted when SCA_FILE_CPU_DIR names a directory: the worker process and its
//   finished children (the scanners, validators and tools a test spawns), from before the file's modules load to
//   after its last afterAll, between the runner's file events (patches/jest-light-runner@0.8.2.patch). ./dev test
//   prints it beside the wall seconds of the slowest files (scripts/test.sh). While a file runs, `<pid>.running` in
//   the same directory names it: what ./dev test shows if jest runs over its time limit.
import { appendFileSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { registerHooks } from "node:module";
import { join } from "node:path";

const GLOBALS = new URL("./jest-globals.ts", import.meta.url).href;

registerHooks({
  resolve(specifier, context, next) {
    if (specifier === "@jest/globals") return { url: GLOBALS, shortCircuit: true };
    return next(specifier, context);
  },
});

/** utime + stime + cutime + cstime of this process, in clock ticks (1/100 s): fields 14-17 of /proc/self/stat. */
function cpuTicks(): number {
  const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ");
  return [14, 15, 16, 17].reduce((sum, field) => sum + Number(fields[field - 3]), 0);
}

const cpuDir = process.env.SCA_FILE_CPU_DIR;
if (cpuDir) {
  let startTicks = 0;
  const running = join(cpuDir, `${process.pid}.running`);
  process.on("jest-light-runner:file-start", (file: string) => {
    startTicks = cpuTicks();
    writeFileSync(running, `${file} (since ${new Date().toISOString()})\n`);
  });
  process.on("jest-light-runner:file-end", (file: string) => {
    const line = { file, cpuSeconds: (cpuTicks() - startTicks) / 100 };
    appendFileSync(join(cpuDir, `${process.pid}.jsonl`), `${JSON.stringify(line)}\n`);
    rmSync(running, { force: true });
  });
}
