// A tool's output on its way to the scan's log: lines gathered as they arrive and written in batches (each a
// transaction of its own, through the reporter), so a chatty tool costs a write per batch, not per line. A log
// opened held keeps its lines until release(): a stage's work that starts before the stage is reported (the scancode
// stage beside cdxgen) has its lines follow the stage's progress frame.
import type { AttemptReporter } from "./attempt-reporter.ts";

const FLUSH_EVERY_MS = 500;

export class ToolLog {
  private readonly reporter: AttemptReporter;
  private readonly stage: string;
  private pending: { stream: "stdout" | "stderr"; line: string }[] = [];
  private writing: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;

  constructor(reporter: AttemptReporter, stage: string, opts: { held?: boolean } = {}) {
    this.reporter = reporter;
    this.stage = stage;
    if (!opts.held) this.release();
  }

  readonly line = (stream: "stdout" | "stderr", line: string): void => {
    this.pending.push({ stream, line });
  };

  /** Starts writing: what was held at once, then a batch every half second. */
  release(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.flush(), FLUSH_EVERY_MS);
    this.timer.unref();
    this.flush();
  }

  private flush(): void {
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    // Consecutive lines of one stream go together, in order.
    this.writing = this.writing.then(async () => {
      let i = 0;
      while (i < batch.length) {
        const stream = batch[i]!.stream;
        const lines: string[] = [];
        while (i < batch.length && batch[i]!.stream === stream) lines.push(batch[i++]!.line);
        await this.reporter.log(this.stage, stream, lines).catch(() => undefined);
      }
    });
  }

  /** Writes what is left (held or not) and stops. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    this.flush();
    await this.writing;
  }

  /** Stops without writing what is held (the stage never began). */
  discard(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.pending = [];
  }
}
