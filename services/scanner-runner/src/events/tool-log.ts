// A tool's output on its way to the scan's log: lines gathered as they arrive and written in batches (each a
// transaction of its own, through the reporter), so a chatty tool costs a write per batch, not per line.
import type { AttemptReporter } from "./attempt-reporter.ts";

export class ToolLog {
  private readonly reporter: AttemptReporter;
  private readonly stage: string;
  private pending: { stream: "stdout" | "stderr"; line: string }[] = [];
  private writing: Promise<void> = Promise.resolve();
  private readonly timer: NodeJS.Timeout;

  constructor(reporter: AttemptReporter, stage: string) {
    this.reporter = reporter;
    this.stage = stage;
    this.timer = setInterval(() => this.flush(), 500);
    this.timer.unref();
  }

  readonly line = (stream: "stdout" | "stderr", line: string): void => {
    this.pending.push({ stream, line });
  };

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

  /** Writes what is left and stops. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    this.flush();
    await this.writing;
  }
}
