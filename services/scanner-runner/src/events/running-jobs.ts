// The jobs this instance is running, by scan, so news of a scan (a cancel, a later attempt) reaches its run.
import { jobStanding, type HeardScanState, type JobStanding } from "../domain/scan-job.ts";

export interface RunningJob {
  readonly scanId: string;
  readonly attempt: number;
  /** Aborted when the scan is no longer this run's; reason: the standing that ended it. */
  readonly signal: AbortSignal;
  /** Why the run was told to stop, once it was. */
  standing(): JobStanding;
  end(): void;
}

export class RunningJobs {
  private readonly byScan = new Map<string, Set<{ attempt: number; controller: AbortController }>>();

  begin(scanId: string, attempt: number): RunningJob {
    const entry = { attempt, controller: new AbortController() };
    const runs = this.byScan.get(scanId) ?? new Set();
    runs.add(entry);
    this.byScan.set(scanId, runs);
    return {
      scanId,
      attempt,
      signal: entry.controller.signal,
      standing: () => (entry.controller.signal.aborted ? (entry.controller.signal.reason as JobStanding) : "run"),
      end: () => {
        runs.delete(entry);
        if (runs.size === 0 && this.byScan.get(scanId) === runs) this.byScan.delete(scanId);
      },
    };
  }

  /** Tells the runs of the scan that the news ends them (a cancel, the scan over, a later attempt). */
  heard(scanId: string, heard: HeardScanState): number {
    let stopped = 0;
    for (const run of this.byScan.get(scanId) ?? []) {
      const standing = jobStanding(run.attempt, heard);
      if (standing !== "run" && !run.controller.signal.aborted) {
        run.controller.abort(standing);
        stopped += 1;
      }
    }
    return stopped;
  }

  get size(): number {
    let n = 0;
    for (const runs of this.byScan.values()) n += runs.size;
    return n;
  }
}
