#!/usr/bin/env node
// The `sca` executable: only runs the program (program.ts) on this process's arguments and streams.
import { enableCompileCache } from "node:module";

// Node keeps the compiled modules (under the temporary directory, or NODE_COMPILE_CACHE) for the next run: CI calls
// sca several times a job, and start-up was most of the CLI's own time (docs/benchmarks.md, `cli`). Hence the
// program is imported only after it is on.
enableCompileCache();
const { runCli } = await import("./program.ts");

// A reader that stops early (`sca findings | head`) is not an error of ours.
process.stdout.on("error", (err: NodeJS.ErrnoException) => {
  if (err.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw err;
});

process.exitCode = await runCli(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
});
