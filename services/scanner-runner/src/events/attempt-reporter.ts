// What one attempt of a scan tells the world on sca.scan.events (keyed by scan id), through the outbox: progress
// frames and log lines committed outside the job's transaction, so they leave while the work runs, and heartbeats
// that renew the attempt's lease during long stages. Frames are written behind the work, not in its way: each call
// queues its frames (stamped when called) and returns; one writer commits what has queued, in order, a transaction
// per batch. A write that fails is thrown by the next call, or by settled(). The outcome is written by the job's own
// transaction (finish, after settled()), with the record that the job was applied: both commit, or the job runs again.
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
  type ScanProgress,
} from "@sca/proto/sca/events/v1/scans_pb.ts";
import { nextLogLine, type LogLimits } from "@sca/scan-logs";
import { scanEvents } from "./topics.ts";

export interface Attempt {
  scanId: string;
  attempt: number;
}

export type AttemptOutcome =
  | {
      outcome: "succeeded";
      componentCount: number;
      documentRelease: string;
      /** Distinct purls whose registry license had not answered when the outcome was due, and the first of them. */
      pendingLicenseCount: number;
      pendingLicensePurls: string[];
    }
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
  /** Frames queued for the writer, in the order they were reported. */
  private queued: (ScanProgress | ScanLogLine)[] = [];
  private writing: Promise<void> | undefined;
  private failure: Error | undefined;

  constructor(deps: ReporterDeps, attempt: Attempt) {
    this.deps = deps;
    this.attempt = attempt;
  }

  /** A progress frame; the first of an attempt moves the scan to running. */
  progress(step: string, percent: number): Promise<void> {
    this.last = { step, percent };
    return this.queue([this.progressFrame(false)]);
  }

  /**
   * The last frame again, marked as a heartbeat: renews the lease, not forwarded to browsers. Written at once in a
   * transaction of its own, beside the queue: a heartbeat that fails does not fail the attempt.
   */
  async heartbeat(): Promise<void> {
    const frame = this.progressFrame(true);
    await this.deps.orm.em.fork().transactional((em) => {
      enqueue(em, scanEvents, this.attempt.scanId, frame);
      return Promise.resolve();
    });
    this.deps.wakeRelay();
  }

  /** Resolves once every frame reported so far is committed; rejects with the first write that failed. */
  async settled(): Promise<void> {
    await this.writing;
    if (this.failure) throw this.failure;
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
    return this.queue(messages);
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

  private progressFrame(heartbeat: boolean): ScanProgress {
    return create(ScanProgressSchema, { occurredAt: timestampNow(), ...this.attempt, ...this.last, heartbeat });
  }

  private queue(frames: (ScanProgress | ScanLogLine)[]): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (frames.length === 0) return Promise.resolve();
    this.queued.push(...frames);
    this.writing ??= this.writeQueued();
    return Promise.resolve();
  }

  // The one writer: what queued while a batch was committing goes in the next batch, in order.
  private async writeQueued(): Promise<void> {
    try {
      while (this.queued.length > 0) {
        const batch = this.queued;
        this.queued = [];
        await this.deps.orm.em.fork().transactional((em) => {
          for (const frame of batch) enqueue(em, scanEvents, this.attempt.scanId, frame);
          return Promise.resolve();
        });
        this.deps.wakeRelay();
      }
    } catch (err) {
      this.failure = err instanceof Error ? err : new Error(String(err));
      this.queued = [];
    } finally {
      this.writing = undefined;
    }
  }
}
