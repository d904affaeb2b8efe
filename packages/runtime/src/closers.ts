// Closing what a process opened, in order: every closer runs even when one before it failed, each failure is logged
// with the resource it names, and the close fails once all have run.
import type { Logger } from "@sca/log";

export type Closer = { name: string; close: () => Promise<unknown> };

export async function closeInOrder(owner: string, closers: readonly Closer[], logger: Logger): Promise<void> {
  const failed: unknown[] = [];
  for (const c of closers) {
    try {
      await c.close();
    } catch (err) {
      failed.push(err);
      logger.error({ err, resource: c.name }, "error while closing");
    }
  }
  if (failed.length > 0) throw new AggregateError(failed, `${owner}: ${failed.length} resources did not close cleanly`);
}
