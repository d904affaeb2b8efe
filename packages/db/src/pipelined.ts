// Statements sent on one transaction without waiting for each (docs/findings.md, "Recording verdicts"): the
// transaction runs them one after another in the order they were sent, so the caller makes the next statement's
// parameters (often megabytes of JSON) while PostgreSQL still works on the ones before, instead of each side waiting
// for the other in turn.

/** The statements a writer has sent, at most `depth` of them running or queued at once. */
export class Pipelined {
  readonly #sent: Promise<unknown>[] = [];
  #waited = 0;
  readonly #depth: number;

  /** `depth` bounds what is held at once: each statement's parameters stay in memory until it has run. */
  constructor(depth = 3) {
    this.#depth = depth;
  }

  /** Sends a statement; waits first, when `depth` are still unfinished, for the oldest of them. */
  async send(statement: Promise<unknown>): Promise<void> {
    this.#sent.push(statement);
    // A failure is not thrown here: what was sent after it still runs (and fails) on the connection.
    while (this.#sent.length - this.#waited > this.#depth) await Promise.allSettled([this.#sent[this.#waited++]]);
  }

  /**
   * Waits for every statement sent, then throws the first that failed (those after it only found the transaction
   * aborted), else `failure`: what stopped the writer itself, thrown once nothing is left running on the connection.
   */
  async settled(failure?: { reason: unknown }): Promise<void> {
    const results = await Promise.allSettled(this.#sent.splice(0));
    this.#waited = 0;
    const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failed) throw failed.reason;
    if (failure) throw failure.reason;
  }
}
