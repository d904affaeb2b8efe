// cdxgen started ahead of the next source scan (docs/source-scans.md, "cdxgen started ahead"). cdxgen spends most
// of a small repository's scan loading its own modules; a runner that has just run a source scan starts the next
// scan's cdxgen in a fresh workspace with the exact command, environment and sandbox a cold run gets, held by
// cdxgen-prestart-gate.ts after its loading until a scan takes it. The scan then fetches its tree into that
// workspace and releases cdxgen over it. One process per scan, as before: nothing of one scan reaches the next.
import { fileURLToPath } from "node:url";
import type { Logger } from "@sca/log";
import { runTool, type ToolResult } from "../sandbox/run-tool.ts";
import { openWorkspace, type Workspace } from "../sandbox/workspace.ts";
import type { ToolLine } from "../fetch/git-clone.ts";
import { cdxgenInvocation, cdxgenSbom, type CdxgenOptions } from "./cdxgen.ts";

const GATE = fileURLToPath(new URL("./cdxgen-prestart-gate.ts", import.meta.url));

/** A prestarted cdxgen not taken for this long is let go (its memory back); the next scan starts cold. */
export const PRESTART_IDLE_MS = 15 * 60_000;
/** After a scan, the next cdxgen starts this much later: the scan's outcome goes out first. */
export const PRESTART_DELAY_MS = 250;

export interface CdxgenPrestartOptions {
  cdxgen: CdxgenOptions;
  /** SCAN_WORK_DIR, SCAN_SANDBOX_UID: where the workspace is made and who owns it. */
  workDir: string;
  sandboxUid: number;
  logger: Logger;
}

/** One cdxgen process, loaded and waiting in its own workspace for the scan that takes it. */
export class PrestartedCdxgen {
  /** Its process has ended (before a scan released it: killed, or it could not start). */
  ended = false;
  private readonly stop = new AbortController();
  private readonly release = Promise.withResolvers<void>();
  private readonly result: Promise<ToolResult>;
  private onLine: ToolLine | null = null;
  private readonly early: [stream: "stdout" | "stderr", line: string][] = [];
  readonly ws: Workspace;
  private readonly opts: CdxgenOptions;

  constructor(ws: Workspace, opts: CdxgenOptions) {
    this.ws = ws;
    this.opts = opts;
    const cdxgen = cdxgenInvocation(ws, opts);
    this.result = runTool({
      ...cdxgen.run,
      command: process.execPath,
      args: [...cdxgen.nodeFlags, `--allow-fs-read=${GATE}`, "--import", GATE, cdxgen.entry, ...cdxgen.cdxgenArgs],
      signal: this.stop.signal,
      // Lines before a scan takes it (a module that would not load) are held for that scan's log.
      onLine: (stream, line) =>
        this.onLine ? this.onLine(stream, line) : this.early.length < 100 && this.early.push([stream, line]),
      held: { release: this.release.promise },
    });
    void this.result.catch(() => undefined).then(() => (this.ended = true));
  }

  /** Runs cdxgen over the workspace's tree for the scan: its SBOM, or the error that says why there is none. */
  async run(onLine: ToolLine, signal: AbortSignal): Promise<Buffer> {
    signal.throwIfAborted();
    this.onLine = onLine;
    for (const [stream, line] of this.early.splice(0)) onLine(stream, line);
    const stop = () => this.stop.abort(signal.reason);
    signal.addEventListener("abort", stop, { once: true });
    this.release.resolve();
    try {
      return await cdxgenSbom(await this.result, this.ws, this.opts, onLine);
    } finally {
      signal.removeEventListener("abort", stop);
    }
  }

  /** Ends it unused (or after a failed fetch), and waits for its process to be gone. */
  async discard(): Promise<void> {
    this.stop.abort(new Error("the prestarted cdxgen was let go"));
    await this.result.catch(() => undefined);
  }
}

/** The runner's prestart: at most one cdxgen waiting, started after a source scan, taken by the next one. */
export class CdxgenPrestart {
  private waiting: PrestartedCdxgen | null = null;
  private starting: Promise<void> | null = null;
  private idle: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly opts: CdxgenPrestartOptions;

  constructor(opts: CdxgenPrestartOptions) {
    this.opts = opts;
  }

  /** The waiting cdxgen, now the caller's (its workspace too), or null: the scan starts its own. */
  take(): PrestartedCdxgen | null {
    const taken = this.waiting;
    this.waiting = null;
    clearTimeout(this.idle);
    if (!taken?.ended) return taken;
    void taken.ws.remove();
    return null;
  }

  /** After a source scan: the next scan's cdxgen, unless one waits or is being started. */
  prepareNext(): void {
    if (this.closed || this.waiting || this.starting) return;
    this.starting = new Promise<void>((resolve) => setTimeout(resolve, PRESTART_DELAY_MS))
      .then(() => this.start())
      .catch((err: unknown) => this.opts.logger.warn({ err }, "could not start cdxgen ahead of the next scan"))
      .finally(() => (this.starting = null));
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.starting;
    await this.letGo();
  }

  private async letGo(): Promise<void> {
    const left = this.take();
    if (!left) return;
    await left.discard();
    await left.ws.remove();
  }

  private async start(): Promise<void> {
    if (this.closed) return;
    const ws = await openWorkspace(this.opts.workDir, this.opts.sandboxUid);
    if (this.closed) return void (await ws.remove());
    this.waiting = new PrestartedCdxgen(ws, this.opts.cdxgen);
    this.idle = setTimeout(() => void this.letGo(), PRESTART_IDLE_MS);
    this.idle.unref();
  }
}
