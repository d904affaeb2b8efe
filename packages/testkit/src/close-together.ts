// Closing what a test file started: everything at once (in turn, a stack's close was the sum of its services'
// drains), and bounded: a close still running at the deadline is abandoned with a line naming it, so a teardown can
// never outlive its hook's timeout and fail a file whose tests all passed. What was abandoned dies with the jest
// worker, which jest ends after the run.
export interface Closeable {
  close(): Promise<unknown>;
}

/** How long a teardown may take before what is left is abandoned: within jest's 30 s default for a hook. */
export const CLOSE_DEADLINE_MS = 20_000;

/**
 * Closes every item together (undefined ones, from a beforeAll that failed half-way, are skipped). Resolves when all
 * have closed or at the deadline; a close that failed or was abandoned is reported on stderr, never thrown.
 */
export async function closeTogether(
  items: readonly (Closeable | undefined | null)[],
  deadlineMs = CLOSE_DEADLINE_MS,
): Promise<void> {
  const pending = new Map<number, string>();
  const closes = items.map(async (item, i) => {
    if (!item) return;
    pending.set(i, nameOf(item, i));
    try {
      await item.close();
    } catch (err) {
      process.stderr.write(`closeTogether: ${nameOf(item, i)} failed to close: ${String(err)}\n`);
    } finally {
      pending.delete(i);
    }
  });
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<"deadline">((done) => {
    timer = setTimeout(() => done("deadline"), deadlineMs);
    timer.unref();
  });
  const outcome = await Promise.race([Promise.all(closes), deadline]);
  clearTimeout(timer);
  if (outcome === "deadline")
    process.stderr.write(
      `closeTogether: still closing after ${deadlineMs} ms, abandoned: ${[...pending.values()].join(", ")}\n`,
    );
}

function nameOf(item: Closeable, index: number): string {
  const named = item as { name?: unknown };
  return typeof named.name === "string" ? named.name : `item ${index}`;
}
