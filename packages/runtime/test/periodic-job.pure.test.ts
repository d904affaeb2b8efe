// Pure tests of the runtime's periodic jobs: timers and promises only, no servers.
import { describe, expect, it } from "@jest/globals";
import { Writable } from "node:stream";
import { setTimeout as delay } from "node:timers/promises";
import { createLogger } from "@sca/log";
import { startPeriodicJob } from "../src/periodic-job.ts";

const quiet = createLogger("periodic-job-test", "ERROR", new Writable({ write: (_c, _e, done) => done() }));

/** A promise and the function that settles it. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

async function until(check: () => boolean, timeoutMs = 5_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !check();) {
    if (Date.now() > deadline) throw new Error("timed out");
    await delay(5);
  }
}

describe("a periodic job", () => {
  it("runs at start and again each period, never beside itself", async () => {
    let running = 0;
    let most = 0;
    let runs = 0;
    const job = startPeriodicJob(
      {
        name: "slow",
        everyMs: 5,
        run: async () => {
          runs += 1;
          most = Math.max(most, ++running);
          await delay(30); // six periods long
          running -= 1;
        },
      },
      quiet,
    );
    expect(runs).toBe(1);
    await until(() => runs >= 4);
    await job.stop();
    expect(most).toBe(1);
  });

  it("waits a period between the start of one run and the next", async () => {
    const starts: number[] = [];
    const job = startPeriodicJob(
      { name: "quick", everyMs: 50, run: () => Promise.resolve(starts.push(Date.now())) },
      quiet,
    );
    await until(() => starts.length >= 3);
    await job.stop();
    expect(starts[1]! - starts[0]!).toBeGreaterThanOrEqual(45);
    expect(starts[2]! - starts[1]!).toBeGreaterThanOrEqual(45);
  });

  it("stops by waiting for the run in flight, and runs no more", async () => {
    const release = gate();
    let runs = 0;
    let finished = false;
    const job = startPeriodicJob(
      {
        name: "stubborn",
        everyMs: 1,
        run: async () => {
          runs += 1;
          await release.opened; // ignores the signal: stop must still wait for it
          finished = true;
        },
      },
      quiet,
    );
    let stopped = false;
    const stopping = job.stop().then(() => (stopped = true));
    await delay(30);
    expect(stopped).toBe(false);
    release.open();
    await stopping;
    expect(finished).toBe(true);
    await delay(20);
    expect(runs).toBe(1);
  });

  it("aborts the signal of the run in flight when stopped", async () => {
    const started = gate();
    let sawAbort = false;
    const job = startPeriodicJob(
      {
        name: "long",
        everyMs: 60_000,
        run: (signal) =>
          new Promise<void>((resolve) => {
            started.open();
            signal.addEventListener("abort", () => {
              sawAbort = signal.aborted;
              resolve();
            });
          }),
      },
      quiet,
    );
    await started.opened;
    await job.stop();
    expect(sawAbort).toBe(true);
  });

  it("runs again at its next period after a failed run, logging the failure", async () => {
    const lines: string[] = [];
    const logger = createLogger(
      "periodic-job-test",
      "ERROR",
      new Writable({
        write(chunk: Buffer, _enc, done) {
          lines.push(chunk.toString());
          done();
        },
      }),
    );
    let runs = 0;
    const job = startPeriodicJob(
      {
        name: "flaky",
        everyMs: 5,
        run: () => (++runs === 1 ? Promise.reject(new Error("database hiccup")) : Promise.resolve()),
      },
      logger,
    );
    await until(() => runs >= 2);
    await job.stop();
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      job: "flaky",
      msg: "periodic job failed; it runs again at its next period",
    });
  });
});
