// What one attempt of a scan tells the world on sca.scan.events (keyed by scan id), through the outbox: progress
// frames and log lines each in a transaction of their own, so they leave while the work runs, and heartbeats that
// renew the attempt's lease during long stages. The outcome is written by the job's own transaction (finishAttempt),
// with the record that the job was applied: both commit, or the job runs again.
import { create } from "@bufbuild/protobuf";
import { timestampNow } from "@bufbuild/protobuf/wkt";
import type { EntityManager, MikroORM } from "@mikro-orm/postgresql";
import { enqueue } from "@sca/kafka";
import type { Logger } from "@sca/log";
import {
  ScanAttemptFinishedSchema,
  ScanLogLineSchema,
  ScanProgressSchema,
  type ScanLogLine,
} from "@sca/proto/sca/events/v1/scans_pb.ts";
import { nextLogLine, type LogLimits } from "@sca/scan-logs";
import { scanEvents } from "./topics.ts";

export interface Attempt {
  scanId: string;
  attempt: number;
}

export type AttemptOutcome =
  | { outcome: "succeeded"; componentCount: number; documentRelease: string }
  | { outcome: "failed"; retryable: boolean; errorMessage: string };

export interface ReporterDeps {
  orm: MikroORM;
  wakeRelay: () => void;
  logLimits: LogLimits;
  logger: Logger;
}

export class AttemptReporter {
  private readonly deps: ReporterDeps;
  private readonly attempt: Attempt;
  private last = { step: "", percent: 0 };
  private linesSent = 0;

  constructor(deps: ReporterDeps, attempt: Attempt) {
    this.deps = deps;
    this.attempt = attempt;
  }

  /** A progress frame; the first of an attempt moves the scan to running. */
  async progress(step: string, percent: number): Promise<void> {
    this.last = { step, percent };
    await this.write((em) => this.enqueueProgress(em, false));
  }

  /** The last frame again, marked as a heartbeat: renews the lease, not forwarded to browsers. */
  async heartbeat(): Promise<void> {
    await this.write((em) => this.enqueueProgress(em, true));
  }

  /**
   * Sends a heartbeat every `everyMs` until the returned function is called. A heartbeat that cannot be written is
   * logged and the next one tries again: the lease is long enough to miss a few.
   */
  heartbeatEvery(everyMs: number): () => void {
    const timer = setInterval(() => {
      this.heartbeat().catch((err: unknown) =>
        this.deps.logger.warn({ err, scanId: this.attempt.scanId }, "could not write a heartbeat"),
      );
    }, everyMs);
    timer.unref();
    return () => clearInterval(timer);
  }

  /**
   * Log lines of a stage, truncated to SCAN_LOG_LINE_MAX_LEN; past SCAN_LOG_MAX_LINES_PER_SCAN lines of the attempt
   * (every stage together) no more are sent.
   */
  async log(stage: string, stream: "stdout" | "stderr", lines: readonly string[]): Promise<void> {
    const messages: ScanLogLine[] = [];
    for (const text of lines) {
      const decision = nextLogLine(this.linesSent, text, stream, this.deps.logLimits);
      if (!decision.send) break;
      this.linesSent = decision.lineNumber;
      messages.push(
        create(ScanLogLineSchema, {
          occurredAt: timestampNow(),
          ...this.attempt,
          stage,
          stream: decision.stream,
          line: decision.line,
          lineNumber: decision.lineNumber,
        }),
      );
    }
    if (messages.length === 0) return;
    await this.write((em) => {
      for (const m of messages) enqueue(em, scanEvents, this.attempt.scanId, m);
    });
  }

  /** The attempt's outcome, written through the job's transaction (`em`). */
  finish(em: EntityManager, outcome: AttemptOutcome): void {
    enqueue(
      em,
      scanEvents,
      this.attempt.scanId,
      create(ScanAttemptFinishedSchema, { occurredAt: timestampNow(), ...this.attempt, ...outcome }),
    );
  }

  private enqueueProgress(em: EntityManager, heartbeat: boolean): void {
    enqueue(
      em,
      scanEvents,
      this.attempt.scanId,
      create(ScanProgressSchema, { occurredAt: timestampNow(), ...this.attempt, ...this.last, heartbeat }),
    );
  }

  private async write(work: (em: EntityManager) => void): Promise<void> {
    await this.deps.orm.em.fork().transactional((em) => {
      work(em);
      return Promise.resolve();
    });
    this.deps.wakeRelay();
  }
}
