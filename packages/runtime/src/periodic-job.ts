// Background work that repeats (sweeps, pruners): one way to run it. A job runs at start, then again `everyMs`
// after its previous run began (at once if that run took longer); it never overlaps itself. Stopping aborts the
// signal the run in flight received and waits for it to end.
import type { Logger } from "@sca/log";

export interface PeriodicJob {
  /** Names the job in log lines. */
  name: string;
  /** Time from the start of one run to the start of the next. */
  everyMs: number;
  /** One run. `signal` aborts when the service stops; a long run should give up then. */
  run(signal: AbortSignal): Promise<unknown>;
}

export interface RunningJob {
  /** Cancels the next run, aborts the one in flight and waits for it to end. */
  stop(): Promise<void>;
}

export function startPeriodicJob(job: PeriodicJob, logger: Logger): RunningJob {
  const stopping = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> | undefined;

  const runOnce = async () => {
    const startedAt = Date.now();
    try {
      await job.run(stopping.signal);
    } catch (err) {
      if (!stopping.signal.aborted)
        logger.error({ err, job: job.name }, "periodic job failed; it runs again at its next period");
    }
    if (stopping.signal.aborted) return;
    timer = setTimeout(tick, Math.max(0, startedAt + job.everyMs - Date.now()));
    timer.unref(); // a pending run never keeps the process alive
  };
  const tick = () => {
    timer = undefined;
    inFlight = runOnce().finally(() => (inFlight = undefined));
  };
  tick();

  return {
    async stop() {
      stopping.abort();
      clearTimeout(timer);
      await inFlight;
    },
  };
}
