// How far V8 lets the old generation grow past what a full collection found live, for a service whose large jobs
// must stay within a memory bound (docs/benchmarks.md, `findings-at-scale`). A fixed percentage bounds a large heap
// well but starves a small one: with 50 % over 42 MiB live, the room left (21 MiB) is under what a young generation of
// 8 MB semi-spaces may promote at once, so V8 began marking again right after every full collection and, under a
// steady 100 requests a second, ran one every half second (projects' list tail and a third of its CPU: the
// component-list bench). The percentage is raised for a small heap so the room is at least `minimumHeadroomMb`.
import { constants, PerformanceObserver, type PerformanceEntry } from "node:perf_hooks";
import { getHeapStatistics, setFlagsFromString } from "node:v8";

export interface HeapGrowth {
  /** The old generation may grow to this many percent past what is live (V8's own sizing adapts, up to 300). */
  percent: number;
  /** ...but at least this many MiB past it, so a small heap is not collected in a loop. */
  minimumHeadroomMb: number;
}

/** What projects, the scanner-runner and the gateway run with: 50 % past what is live, at least 64 MiB. */
export const BOUNDED_HEAP_GROWTH: HeapGrowth = { percent: 50, minimumHeadroomMb: 64 };

/** The growth percentage for `liveBytes` live after a full collection: the given one, raised for a small heap. */
export function growthPercent(growth: HeapGrowth, liveBytes: number): number {
  const forHeadroom = (100 * growth.minimumHeadroomMb * 2 ** 20) / Math.max(liveBytes, 1);
  // In steps of 10, so a heap that hovers does not set the flag after every collection; at most V8's own upper bound.
  return Math.min(300, Math.max(growth.percent, Math.ceil(forHeadroom / 10) * 10));
}

/**
 * Sets V8's heap growth (`--heap-growing-percent`, which NODE_OPTIONS refuses) and adjusts it after each full
 * collection to what was live then: V8 reads the flag when it sets the next limit. For the process's lifetime.
 */
export function applyHeapGrowth(growth: HeapGrowth): void {
  let current = growth.percent;
  setFlagsFromString(`--heap-growing-percent=${current}`);
  const observer = new PerformanceObserver((list) => {
    const major = list
      .getEntries()
      .some(
        (e) =>
          (e as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR,
      );
    if (!major) return;
    const next = growthPercent(growth, getHeapStatistics().used_heap_size);
    if (next === current) return;
    current = next;
    setFlagsFromString(`--heap-growing-percent=${next}`);
  });
  observer.observe({ entryTypes: ["gc"] });
}
