// The queue-backlog series of /metrics (QUEUE_BACKLOG_METRICS_ENABLED; docs/operations.md, "Queue backlog on
// /metrics"): the scan jobs each lane's scanner-runners have not taken yet, and the domain events the slowest
// consumer has still to apply, read from Kafka's consumer lag when scraped. One reading serves every scrape for
// FRESH_MS (several Prometheus replicas, or KEDA and Prometheus, scrape the same gateway); a reading that fails or
// passes DEADLINE_MS leaves the backlog series empty and sca_queue_backlog_up 0, never a stale number.
import { SCAN_LANES, type QueueLag } from "@sca/kafka";
import type { Logger } from "@sca/log";
import { within } from "@sca/runtime/within";
import { Gauge, type Registry } from "prom-client";

const FRESH_MS = 10_000;
const DEADLINE_MS = 5_000;

export function registerQueueBacklogMetrics(
  registry: Registry,
  measure: () => Promise<QueueLag>,
  logger: Logger,
): void {
  let last: { at: number; reading: Promise<QueueLag | null> } | null = null;
  const reading = (): Promise<QueueLag | null> => {
    const now = Date.now();
    if (last && now - last.at < FRESH_MS) return last.reading;
    const next = within(measure(), DEADLINE_MS, "no answer from Kafka").catch((err: unknown) => {
      logger.warn({ err }, "queue backlog not measured");
      return null;
    });
    last = { at: now, reading: next };
    return next;
  };

  new Gauge({
    name: "sca_queue_backlog_up",
    help: "1 when the last reading of the queues' consumer lag succeeded, else 0",
    registers: [registry],
    async collect() {
      this.set((await reading()) ? 1 : 0);
    },
  });
  new Gauge({
    name: "sca_queue_backlog_messages",
    help: "Messages waiting: scan = scan jobs no scanner-runner has taken (both lanes); default = domain events the slowest consumer has yet to apply",
    labelNames: ["queue"],
    registers: [registry],
    async collect() {
      this.reset();
      const lag = await reading();
      if (!lag) return;
      this.set({ queue: "scan" }, lag.scan);
      this.set({ queue: "default" }, lag.default);
    },
  });
  new Gauge({
    name: "sca_scan_lane_lag_messages",
    help: "Scan jobs of the lane (manual, automatic) its scanner-runner consumer group has not taken yet",
    labelNames: ["lane"],
    registers: [registry],
    async collect() {
      this.reset();
      const lag = await reading();
      if (!lag) return;
      for (const lane of SCAN_LANES) this.set({ lane }, lag.lanes[lane]);
    },
  });
}
