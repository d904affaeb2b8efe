// Runs one tool of a scan (git, cdxgen) as a child process that may be hostile: the environment is exactly what
// the caller lists (never the runner's own: no database, Kafka, Redis or signing values), the process leads a group
// of its own so a timeout or a cancel kills everything it started, its output is read line by line with a byte
// budget per stream (past it, read and dropped), and prlimit caps the size of any file it writes, core dumps and,
// for tools that are not V8 (whose heap has its own flag), the address space. Run as root, the tool runs as an
// unprivileged user instead.
import { spawn } from "node:child_process";

export interface ToolLimits {
  timeoutMs: number;
  /** Bytes of stdout and of stderr (each) that are logged; the rest is read and dropped. */
  outputMaxBytes: number;
  /** RLIMIT_FSIZE: the largest file the tool may write. */
  fileMaxBytes: number;
  /** RLIMIT_AS in bytes, for tools that are not node (node tools get --max-old-space-size instead). */
  addressSpaceBytes?: number;
}

export interface ToolRun {
  command: string;
  args: readonly string[];
  cwd: string;
  /** The whole environment of the tool: nothing else is passed. */
  env: Readonly<Record<string, string>>;
  limits: ToolLimits;
  signal: AbortSignal;
  /** Run as this user and group (when the runner is root); absent: as the runner. */
  runAs?: { uid: number; gid: number };
  /** Each complete line, as it arrives (lines longer than 64 KiB are split). */
  onLine: (stream: "stdout" | "stderr", line: string) => void;
  /**
   * A tool started ahead of its job (tools/cdxgen-prestart.ts): it gets a pipe on stdin that stays open until
   * `release` resolves, then carries one newline and its end; the timeout runs from then.
   */
  held?: { release: Promise<void> };
}

export interface ToolResult {
  exitCode: number | null;
  /** The signal that ended it, when one did. */
  killedBy: NodeJS.Signals | null;
  timedOut: boolean;
  /** The streams whose output passed the budget and was dropped. */
  cut: ("stdout" | "stderr")[];
}

const LINE_MAX_BYTES = 64 * 1024;

/** Runs the tool to its end (or its kill); rejects with the signal's reason when `signal` aborts. */
export function runTool(run: ToolRun): Promise<ToolResult> {
  run.signal.throwIfAborted();
  const { limits } = run;
  const prlimits = [`--fsize=${limits.fileMaxBytes}`, "--core=0"];
  if (limits.addressSpaceBytes) prlimits.push(`--as=${limits.addressSpaceBytes}`);
  const { held } = run;
  const child = spawn("prlimit", [...prlimits, "--", run.command, ...run.args], {
    cwd: run.cwd,
    env: run.env,
    detached: true,
    stdio: [held ? "pipe" : "ignore", "pipe", "pipe"],
    ...(run.runAs ?? {}),
  });
  const killGroup = () => {
    try {
      if (child.pid) process.kill(-child.pid, "SIGKILL");
    } catch {
      // the group is gone already
    }
  };
  let timedOut = false;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const startClock = () => {
    timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, limits.timeoutMs);
  };
  if (held) {
    child.stdin!.on("error", () => undefined); // a tool that died before its release
    void held.release.then(() => {
      if (closed) return;
      startClock();
      child.stdin!.end("\n");
    });
  } else startClock();
  run.signal.addEventListener("abort", killGroup, { once: true });
  const cut: ("stdout" | "stderr")[] = [];
  const reading = [readLines(child.stdout!, "stdout"), readLines(child.stderr!, "stderr")];

  function readLines(stream: NodeJS.ReadableStream, name: "stdout" | "stderr"): Promise<void> {
    let budget = limits.outputMaxBytes;
    let dropping = false;
    let pending = "";
    const emit = (text: string) => {
      const bytes = Buffer.byteLength(text) + 1;
      if (dropping || bytes > budget) {
        if (!dropping) cut.push(name);
        dropping = true;
        return;
      }
      budget -= bytes;
      run.onLine(name, text);
    };
    stream.setEncoding("utf8");
    return new Promise((resolve) => {
      stream.on("data", (chunk: string) => {
        if (dropping) return;
        pending += chunk;
        let nl: number;
        while ((nl = pending.indexOf("\n")) >= 0) {
          emit(pending.slice(0, nl));
          pending = pending.slice(nl + 1);
        }
        while (pending.length > LINE_MAX_BYTES) {
          emit(pending.slice(0, LINE_MAX_BYTES));
          pending = pending.slice(LINE_MAX_BYTES);
        }
      });
      stream.on("end", () => {
        if (pending) emit(pending);
        resolve();
      });
      stream.on("error", () => resolve());
    });
  }

  return new Promise<ToolResult>((resolve, reject) => {
    child.on("error", (err) => {
      clearTimeout(timer);
      run.signal.removeEventListener("abort", killGroup);
      reject(err);
    });
    // Whatever the tool left running in the background dies with it (and lets go of the pipes).
    child.on("exit", killGroup);
    child.on("close", (code, killedBy) => {
      closed = true;
      clearTimeout(timer);
      run.signal.removeEventListener("abort", killGroup);
      void Promise.all(reading).then(() => {
        if (run.signal.aborted) reject(run.signal.reason as Error);
        else resolve({ exitCode: code, killedBy, timedOut, cut });
      });
    });
  });
}
