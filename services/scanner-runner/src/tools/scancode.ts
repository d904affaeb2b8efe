// scancode-toolkit (pinned in scripts/versions.sh, installed by scripts/setup/scancode.sh) detecting the licenses of
// a directory's files. It runs in the sandbox (runTool: the scrubbed environment, its own process group killed on
// timeout or cancel, the sandbox user) with RLIMIT_FSIZE just past SCANCODE_MAX_RESULT_BYTES, and writes JSON lines
// (one file a line), which the stage reads line by line, so memory stays bounded by the largest file's record.
import { execFile, execFileSync } from "node:child_process";
import { createReadStream, realpathSync } from "node:fs";
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { createInterface } from "node:readline";
import { scannedFilesOf, type ScannedFile } from "../domain/scancode/file-detections.ts";
import type { ToolLine } from "../fetch/git-clone.ts";
import { runTool } from "../sandbox/run-tool.ts";
import { sandboxEnv, type Workspace } from "../sandbox/workspace.ts";

export interface ScancodeOptions {
  /** SCANCODE_BIN, resolved by scancodeCommand at the first scan; empty: the scancode on the runner's PATH. */
  bin: string;
  timeoutMs: number;
  /** The address space of scancode and its worker processes (SCAN_TOOL_MEMORY_MB). */
  memoryMb: number;
  outputMaxBytes: number;
  /** SCANCODE_MAX_RESULT_BYTES */
  resultMaxBytes: number;
}

export type ScancodeRun =
  | { kind: "done"; output: string }
  | { kind: "timed-out" }
  | { kind: "too-large"; bytes: number }
  | { kind: "failed"; reason: string };

/** The options that decide what scancode finds: part of the cache key with the version. */
const DETECTION_ARGS = ["--license"] as const;

const execFileAsync = promisify(execFile);

const commands = new Map<string, string>();
/** The scancode script itself (its shebang names the virtualenv's python), not the .tools/bin link to it. */
export function scancodeCommand(configured: string): string {
  const known = commands.get(configured);
  if (known) return known;
  const command = configured || execFileSync("sh", ["-c", "command -v scancode || true"], { encoding: "utf8" }).trim();
  if (!command) throw new Error("scancode is not installed (set SCANCODE_BIN or put scancode on PATH)");
  const resolved = realpathSync(command);
  commands.set(configured, resolved);
  return resolved;
}

/**
 * What names a scanner in the cache: the installed scancode's version and the detection options. Asked once per
 * command, without blocking: `scancode --version` loads python for seconds, and the stage now runs beside cdxgen
 * and the fingerprint stage's requests.
 */
const scanners = new Map<string, Promise<string>>();
/** Whether the scanner of `command` was asked already (its answer is at hand, or on its way). */
export function scannerKnown(command: string): boolean {
  return scanners.has(command);
}

export function scannerOf(command: string): Promise<string> {
  let scanner = scanners.get(command);
  if (!scanner) {
    scanner = askVersion(command);
    scanners.set(command, scanner);
    scanner.catch(() => scanners.delete(command)); // a failure is asked again by the next scan
  }
  return scanner;
}

async function askVersion(command: string): Promise<string> {
  const { stdout } = await execFileAsync(command, ["--version"], {
    encoding: "utf8",
    env: { PATH: "/usr/bin:/bin", LANG: "C.UTF-8" },
  });
  const version = /\d+\.\d+\.\d+\S*/.exec(stdout)?.[0];
  if (!version) throw new Error(`${command} --version named no version`);
  return `scancode-${version} ${DETECTION_ARGS.join(" ")}`.slice(0, 64);
}

/** Runs scancode over `input` (a directory of the workspace); the JSON-lines output is in ws.out on success. */
export async function runScancode(
  ws: Workspace,
  input: string,
  opts: ScancodeOptions,
  onLine: ToolLine,
  signal: AbortSignal,
): Promise<ScancodeRun> {
  const output = join(ws.out, "scancode.jsonl");
  const result = await runTool({
    command: scancodeCommand(opts.bin),
    args: [...DETECTION_ARGS, "--processes", "1", "--strip-root", "--quiet", "--json-lines", output, input],
    cwd: ws.home,
    env: sandboxEnv(ws, { SCANCODE_TEMP: ws.tmp }),
    runAs: ws.runAs,
    signal,
    limits: {
      timeoutMs: opts.timeoutMs,
      outputMaxBytes: opts.outputMaxBytes,
      fileMaxBytes: opts.resultMaxBytes + 1,
      addressSpaceBytes: opts.memoryMb * 1024 ** 2,
    },
    onLine,
  });
  if (result.timedOut) return { kind: "timed-out" };
  const bytes = await stat(output).then(
    (s) => s.size,
    () => -1,
  );
  if (bytes > opts.resultMaxBytes) return { kind: "too-large", bytes };
  // Exit code 1: some files had scan errors (each named in the output); what was found still counts.
  if ((result.exitCode !== 0 && result.exitCode !== 1) || bytes < 0)
    return {
      kind: "failed",
      reason: result.exitCode === null ? `stopped by ${result.killedBy}` : `exit code ${result.exitCode}`,
    };
  return { kind: "done", output };
}

/** The scanned files of scancode's output, read a line at a time. */
export async function* scannedFiles(output: string): AsyncGenerator<ScannedFile> {
  const lines = createInterface({ input: createReadStream(output, { encoding: "utf8" }), crlfDelay: Infinity });
  for await (const line of lines) yield* scannedFilesOf(line);
}
