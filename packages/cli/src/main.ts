#!/usr/bin/env node
// The `sca` executable: only runs the program (program.ts) on this process's arguments and streams.
import { runCli } from "./program.ts";

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
