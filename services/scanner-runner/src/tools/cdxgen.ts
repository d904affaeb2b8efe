// cdxgen (@cyclonedx/cdxgen, pinned in scripts/versions.sh) building the CycloneDX SBOM of a checked-out tree. It
// runs in the sandbox (runTool) in its own secure mode: CDXGEN_SECURE_MODE, no dependency installs, no license
// fetching, and under node's permission model reading only its own install and the job's workspace and writing only
// the workspace. The SBOM it writes is read back (at most SBOM_MAX_BYTES) for readSbom, the one path that makes
// inventories.
import { execFileSync } from "node:child_process";
import { readFile, stat } from "node:fs/promises";
import { dirname, join, sep } from "node:path";
import { realpathSync } from "node:fs";
import { JobInputError, TransientJobError } from "../domain/scan-job.ts";
import { runTool, type ToolResult, type ToolRun } from "../sandbox/run-tool.ts";
import { sandboxEnv, type Workspace } from "../sandbox/workspace.ts";
import type { ToolLine } from "../fetch/git-clone.ts";

export interface CdxgenOptions {
  /** CDXGEN_BIN, resolved by cdxgenEntry at the first scan (so a runner without cdxgen still runs SBOM scans). */
  bin: string;
  timeoutMs: number;
  memoryMb: number;
  outputMaxBytes: number;
  sbomMaxBytes: number;
  /**
   * `oci-dir` for an image's unpacked layers: cdxgen then reads the OS package databases (dpkg, apk, rpm, through
   * the trivy of its plugins) and the installed application packages as a container's; absent, it detects the
   * project types of a source tree.
   */
  projectType?: "oci-dir";
}

/** cdxgen's CDXGEN_ALLOWED_COMMANDS is a comma-separated list of exact names; this one names no executable. */
const NO_COMMAND = "(none)";

/**
 * The cdxgen entry script: CDXGEN_BIN (a path to the `cdxgen` command or its cdxgen.js) or, when empty, the `cdxgen`
 * on the runner's PATH (set-up links .tools/bin/cdxgen), followed to the script it links to.
 */
const entries = new Map<string, string>();
export function cdxgenEntry(configured: string): string {
  const known = entries.get(configured);
  if (known) return known;
  const command = configured || execFileSync("sh", ["-c", "command -v cdxgen"], { encoding: "utf8" }).trim();
  if (!command) throw new Error("cdxgen is not installed (set CDXGEN_BIN or put cdxgen on PATH)");
  const entry = realpathSync(command);
  entries.set(configured, entry);
  return entry;
}

/** The directory holding cdxgen and its dependencies: what it may read besides the workspace. */
function installRoot(entry: string): string {
  const at = entry.lastIndexOf(`${sep}node_modules${sep}`);
  return at >= 0 ? entry.slice(0, at) : dirname(dirname(entry));
}

/** The sandboxed command that builds a tree's SBOM into the workspace: node's permission flags, then cdxgen's own. */
export interface CdxgenInvocation {
  /** The node flags before cdxgen's entry (a prestarted run adds its gate here). */
  nodeFlags: string[];
  entry: string;
  cdxgenArgs: string[];
  run: Omit<ToolRun, "command" | "args" | "signal" | "onLine">;
}

export function cdxgenInvocation(ws: Workspace, opts: CdxgenOptions): CdxgenInvocation {
  const entry = cdxgenEntry(opts.bin);
  return {
    nodeFlags: [
      "--permission",
      `--allow-fs-read=${installRoot(entry)}/*`,
      `--allow-fs-read=${ws.root}/*`,
      `--allow-fs-write=${ws.root}/*`,
      "--allow-child-process",
    ],
    entry,
    cdxgenArgs: [
      "--no-install-deps",
      // A source tree is inventoried from its manifests alone (below): when cdxgen's preferred way (go list, mvn)
      // is refused, it falls back to parsing go.mod / pom.xml instead of exiting, as its secure mode would.
      ...(opts.projectType ? [] : ["--no-fail-on-error"]),
      "--spec-version",
      "1.6",
      ...(opts.projectType ? ["-t", opts.projectType] : []),
      "-o",
      sbomPath(ws),
      ws.tree,
    ],
    run: {
      cwd: ws.tree,
      env: sandboxEnv(ws, {
        CDXGEN_SECURE_MODE: "true",
        FETCH_LICENSE: "false",
        CDXGEN_TEMP_DIR: ws.tmp,
        NODE_OPTIONS: `--max-old-space-size=${opts.memoryMb}`,
        CI: "true",
        // No build tool of a source tree runs (docs/source-scans.md): a repository's mvnw or gradlew is project
        // code, and go list / mvn would fetch from the network; an allow-list naming no command refuses them all.
        // Image scans keep theirs (the OS package readers cdxgen runs for an oci-dir).
        ...(opts.projectType ? {} : { CDXGEN_ALLOWED_COMMANDS: NO_COMMAND }),
      }),
      runAs: ws.runAs,
      limits: { timeoutMs: opts.timeoutMs, outputMaxBytes: opts.outputMaxBytes, fileMaxBytes: opts.sbomMaxBytes * 2 },
    },
  };
}

const sbomPath = (ws: Workspace) => join(ws.out, "bom.json");

export async function runCdxgen(
  ws: Workspace,
  opts: CdxgenOptions,
  onLine: ToolLine,
  signal: AbortSignal,
): Promise<Buffer> {
  const cdxgen = cdxgenInvocation(ws, opts);
  const result = await runTool({
    ...cdxgen.run,
    command: process.execPath,
    args: [...cdxgen.nodeFlags, cdxgen.entry, ...cdxgen.cdxgenArgs],
    signal,
    onLine,
  });
  return cdxgenSbom(result, ws, opts, onLine);
}

/** What cdxgen's run left: its SBOM, or the error that says why there is none. */
export async function cdxgenSbom(
  result: ToolResult,
  ws: Workspace,
  opts: Pick<CdxgenOptions, "timeoutMs" | "sbomMaxBytes" | "projectType">,
  onLine: ToolLine,
): Promise<Buffer> {
  const output = sbomPath(ws);
  if (result.cut.length)
    onLine(
      "stderr",
      `cdxgen wrote more than SCAN_TOOL_OUTPUT_MAX_BYTES on ${result.cut.join(" and ")}; the rest was not logged.`,
    );
  if (result.timedOut)
    throw new JobInputError(
      `cdxgen did not finish within CDXGEN_TIMEOUT_SECONDS (${Math.round(opts.timeoutMs / 1000)} s); it was stopped.`,
    );
  if (result.exitCode !== 0)
    throw new TransientJobError(
      `cdxgen failed (${result.exitCode === null ? `stopped by ${result.killedBy}` : `exit code ${result.exitCode}`}); the scan's log has its words.`,
    );
  const size = await stat(output).then(
    (s) => s.size,
    () => -1,
  );
  if (size < 0)
    throw new JobInputError(
      opts.projectType
        ? "cdxgen found nothing to inventory in the image (no package database or installed packages)."
        : "cdxgen found nothing to inventory in the source tree (no supported manifest or lockfile).",
    );
  if (size > opts.sbomMaxBytes)
    throw new JobInputError(`cdxgen's SBOM is ${size} bytes; the largest read is ${opts.sbomMaxBytes} bytes.`);
  return readFile(output);
}
