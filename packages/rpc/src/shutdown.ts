import type { Logger } from "@sca/log";

type Closer = { name: string; close: () => Promise<unknown> };

/**
 * On SIGTERM or SIGINT: run `before` (stop taking traffic, report NOT_SERVING), then close each resource in
 * order (servers first so in-flight work drains, then Kafka, database, Redis), then exit.
 */
export function onShutdown(logger: Logger, closers: Closer[], before?: () => void): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down");
    before?.();
    let code = 0;
    for (const c of closers) {
      try {
        await c.close();
      } catch (err) {
        code = 1;
        logger.error({ err, resource: c.name }, "error while closing");
      }
    }
    logger.info("stopped");
    process.exit(code);
  };
  process.once("SIGTERM", () => void stop("SIGTERM"));
  process.once("SIGINT", () => void stop("SIGINT"));
}
