// `sca scan sbom` of a generated 10,000-component CycloneDX document to the gate's verdict (`--gate`), as a pipeline
// runs it: the published executable (packages/cli/src/build.ts's single-file bundle, built here first; BENCH_CLI=source
// runs packages/cli/src/main.ts instead) in a process of its own, signed in as the super_admin
// (ADMIN_EMAIL/ADMIN_PASSWORD, so it follows the scan over the WebSocket), on a fresh project each run. Target: the
// CLI's own overhead at most 300 ms over the API calls it makes. The CLI's --verbose timing line says how long the
// command waited on the portal (every request, retries included, and the scan followed on the socket); overhead is
// the process's wall time (spawn to exit, Node's start-up and module loading included) minus that. Its CPU column
// (user and system, the whole process) is what the overhead comes to when the cores are not shared.
// Knobs: BENCH_RUNS (default 3), BENCH_BASE_URL, BENCH_CLI (bundle or source).
import { execFile, execFileSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { generateCycloneDxBom } from "@sca/testkit";
import { BASE, Portal } from "./portal.ts";
import { percentile, printTable } from "./table.ts";

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const TARGET_MS = 300;
const SOURCE_MAIN = fileURLToPath(new URL("../packages/cli/src/main.ts", import.meta.url));
const BUILD = fileURLToPath(new URL("../packages/cli/src/build.ts", import.meta.url));
const dir = await mkdtemp(join(tmpdir(), "sca-bench-cli-"));
/** What a pipeline runs after `npm install --global`: the package's bundle, bin/sca.mjs. */
function publishedCli(): string {
  const out = join(dir, "package");
  execFileSync(process.execPath, [BUILD, out]);
  return join(out, "bin", "sca.mjs");
}
const MAIN = process.env.BENCH_CLI === "source" ? SOURCE_MAIN : publishedCli();

function sca(
  args: string[],
  env: Record<string, string>,
  input = "",
): Promise<{ code: number; stdout: string; stderr: string; wallMs: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [MAIN, ...args],
      { env, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) =>
        resolve({
          code: err ? ((err as { code?: number }).code ?? -1) : 0,
          stdout: String(stdout),
          stderr: String(stderr),
          wallMs: performance.now() - started,
        }),
    );
    child.stdin!.end(input);
  });
}

const portal = await Portal.signIn();
const team = await portal.team();
const sbom = join(dir, "bom.json");
await writeFile(sbom, JSON.stringify(generateCycloneDxBom({ components: 10_000, seed: 10_000 })));
const env = { PATH: process.env.PATH ?? "", HOME: dir, XDG_CONFIG_HOME: dir, SCA_API: `${BASE}/api` };
const login = await sca(
  ["login", "--email", process.env.ADMIN_EMAIL ?? "admin@sca.local"],
  env,
  `${process.env.ADMIN_PASSWORD ?? ""}\n`,
);
if (login.code !== 0) throw new Error(`sca login: ${login.stderr}`);

const rows: Record<string, string | number>[] = [];
const overheads: number[] = [];
try {
  for (let i = 0; i <= RUNS; i++) {
    const project = await portal.project(team);
    const run = await sca(["--verbose", "scan", "sbom", sbom, "--project", project, "--gate"], env);
    const timing = /^timing: (\d+) ms in the command, (\d+) ms waiting on the portal, (\d+) ms CPU$/m.exec(run.stderr);
    if (run.code === 2 || !timing) throw new Error(`sca scan exited ${run.code}: ${run.stderr.slice(-2000)}`);
    // The first run warms the portal's caches and pools: not counted.
    if (i === 0) continue;
    const command = Number(timing[1]);
    const waited = Number(timing[2]);
    overheads.push(run.wallMs - waited);
    rows.push({
      run: i,
      "wall ms": Math.round(run.wallMs),
      "portal ms": waited,
      "start-up ms": Math.round(run.wallMs - command),
      "in-command ms": command - waited,
      "overhead ms": Math.round(run.wallMs - waited),
      "CLI CPU ms": Number(timing[3]),
      gate: run.code === 0 ? "pass" : "fail",
    });
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
printTable(
  `sca scan sbom (10,000 components) --gate: the CLI's own overhead (target ≤ ${TARGET_MS} ms; median ${Math.round(percentile(overheads, 50))} ms)`,
  rows,
);
