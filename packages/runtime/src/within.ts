// A deadline on work the caller cannot cancel (a probe, a tool's answer): the caller stops waiting, the work may
// still finish on its own.

/** Rejects after `ms` (with `what` in the message) unless `work` settles first. */
export async function within<T>(work: Promise<T>, ms: number, what = "no answer"): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
