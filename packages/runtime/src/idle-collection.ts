// A full garbage collection once a process has been idle a moment after large work (docs/benchmarks.md,
// `findings-at-scale`). V8 collects when the program allocates; a service that has just finished a large job and
// now waits allocates little, so the job's garbage (a large SBOM read, its inventory, the buffers of its artefact)
// stayed in the heap for minutes, and the heap's pages with it in the resident set. One collection after the quiet
// gives them back. `gc` is V8's own, reached without starting Node with --expose-gc.
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

let collect: (() => void) | undefined;

/** V8's full collection (the flag exposes it to contexts made after it is set). */
function fullCollection(): () => void {
  if (!collect) {
    setFlagsFromString("--expose-gc");
    collect = runInNewContext("gc") as () => void;
  }
  return collect;
}

export interface IdleCollection {
  /** Large work ended: collect once nothing else has ended (and `busy` says nothing runs) for `quietMs`. */
  workEnded(): void;
  /** No collection pending any more (the process stops). */
  stop(): void;
}

/**
 * Collects garbage `quietMs` after the last call of workEnded, unless `busy()` then says work is running (the end
 * of that work schedules it again).
 */
export function idleCollection(quietMs: number, busy: () => boolean): IdleCollection {
  let timer: NodeJS.Timeout | undefined;
  return {
    workEnded() {
      clearTimeout(timer);
      timer = setTimeout(() => {
        timer = undefined;
        if (!busy()) fullCollection()();
      }, quietMs);
      timer.unref();
    },
    stop() {
      clearTimeout(timer);
      timer = undefined;
    },
  };
}
