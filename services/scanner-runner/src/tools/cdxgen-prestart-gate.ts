// Loaded by `node --import` ahead of cdxgen's entry in a cdxgen started before its scan (cdxgen-prestart.ts). It
// imports the modules cdxgen's entry imports (most of cdxgen's start-up: seconds of module loading), then holds the
// entry back until the runner's newline on stdin. cdxgen then runs with the arguments, environment, working
// directory and sandbox it was started with, as a cold start would; only the loading came earlier. It runs in the
// sandboxed node (type-stripped), and imports nothing of the service's.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const entry = pathToFileURL(process.argv[1]!);
const relativeImports = [...readFileSync(entry, "utf8").matchAll(/\bfrom\s+["'](\.\.?\/[^"']+)["']/g)];
for (const [, specifier] of relativeImports) {
  // A module that fails here fails again when the entry imports it, and cdxgen reports that itself.
  await import(new URL(specifier!, entry).href).catch(() => undefined);
}
const released = await new Promise<boolean>((resolve) => {
  process.stdin.once("data", () => resolve(true));
  process.stdin.once("end", () => resolve(false));
  process.stdin.once("error", () => resolve(false));
});
process.stdin.destroy();
// Let go unused (the runner stopping, or the prestart idle too long): nothing ran.
if (!released) process.exit(0);
