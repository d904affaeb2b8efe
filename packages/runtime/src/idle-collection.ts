// A memory-reducing garbage collection once a process has been idle a moment after large work (docs/benchmarks.md,
// `findings-at-scale`). V8 collects when the program allocates, and its memory reducer runs a couple of collections
// some seconds after one (while a large job may still be running); a service that has finished a large job and now
// waits allocates little, so the job's garbage (a large SBOM read, its inventory, the buffers of its artefact) stayed
// in the heap for minutes, and the heap's pages with it in the resident set. A plain full collection frees the
// objects but keeps the old generation's pages (measured: 246 MiB resident before and after, 150 MiB of heap
// committed for 79 live); the memory-reducing one ("last-resort": V8 compacts and gives the free pages back) took
// the same runner to 179 MiB. `gc` is V8's own, reached without starting Node with --expose-gc.
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

type Collector = (options: { type: "major"; execution: "sync"; flavor: "regular" | "last-resort" }) => void;
let collect: Collector | undefined;

/** V8's collector (the flag exposes it to contexts made after it is set). */
function collector(): Collector {
  if (!collect) {
    setFlagsFromString("--expose-gc");
    collect = runInNewContext("gc") as Collector;
  }
  return collect;
}

/** A full, memory-reducing collection: the garbage freed, the heap compacted, its free pages given back. */
function reduceMemory(): void {
  collector()({ type: "major", execution: "sync", flavor: "last-resort" });
}

/** A plain full collection (about 0.1 s at a 50,000-component scan's heap): the garbage freed, the pages kept. */
function collectNow(): void {
  collector()({ type: "major", execution: "sync", flavor: "regular" });
}

/**
 * Work this large (components, verdicts) has its garbage collected once the process is quiet: the memory-reducing
 * collection took 0.7 s after a 50,000-component scan (loaded), more than a small scan's few MB are worth.
 */
export const LARGE_WORK_ITEMS = 5000;

export interface IdleCollection {
  /** Large work ended: collect once nothing else has ended (and `busy` says nothing runs) for `quietMs`. */
  workEnded(): void;
  /**
   * Runs `work`, the collection waiting while it runs; a collection follows it when `size` of its result is at least
   * LARGE_WORK_ITEMS, or when it failed (its size unknown).
   */
  during<T>(work: () => Promise<T>, size: (result: T) => number): Promise<T>;
  /**
   * Large data was just let go and large work follows at once: collect now, so the garbage does not add to the next
   * stage's peak. V8 would wait until the heap grew past what its growth allows over the live data; a scan that has
   * read a 50,000-component SBOM and written its artefact holds that much again in garbage (the document's bytes,
   * the drafts, the raw data, the artefact's buffers) when its matching and ingestion begin.
   */
  collectNow(): void;
  /** No collection pending any more (the process stops). */
  stop(): void;
}

/**
 * Reduces memory `quietMs` after the last call of workEnded, unless `busy()` then says work is running, or work
 * passed to during() is (the end of that work schedules it again).
 */
export function idleCollection(quietMs: number, busy: () => boolean = () => false): IdleCollection {
  let timer: NodeJS.Timeout | undefined;
  let running = 0;
  const workEnded = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      if (running === 0 && !busy()) reduceMemory();
    }, quietMs);
    timer.unref();
  };
  return {
    workEnded,
    async during(work, size) {
      running++;
      let large = true;
      try {
        const result = await work();
        large = size(result) >= LARGE_WORK_ITEMS;
        return result;
      } finally {
        running--;
        if (large) workEnded();
      }
    },
    collectNow,
    stop() {
      clearTimeout(timer);
      timer = undefined;
    },
  };
}
