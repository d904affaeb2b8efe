// Deletes processed_events rows once no redelivery can bring their events back: an event id is only ever seen
// again while its record is still in the topic, so rows are kept well past Kafka's retention (7 days by default).
// Each sweep is one bounded delete over the processed_at index; replicas sweeping at once skip each other's rows.
import type { MikroORM } from "@mikro-orm/postgresql";
import type { Logger } from "@sca/log";
import { schemaTable } from "./schema-table.ts";

export interface ProcessedEventsPrunerOptions {
  orm: MikroORM;
  logger: Logger;
  /** Rows older than this are deleted; keep it above the retention of every topic the service consumes. */
  retentionMs?: number;
  /** Time between sweeps; the first runs at start(). */
  intervalMs?: number;
  /**
   * Rows deleted at most per sweep. At the defaults a service prunes 2.88 million rows a day, so it keeps up
   * with that many events a day; a backlog shrinks by that much a day.
   */
  limit?: number;
}

export const PROCESSED_EVENTS_RETENTION_MS = 14 * 24 * 3600_000;

export class ProcessedEventsPruner {
  private readonly orm: MikroORM;
  private readonly logger: Logger;
  private readonly retentionMs: number;
  private readonly intervalMs: number;
  private readonly limit: number;
  private readonly deleteSql: string;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;

  constructor(opts: ProcessedEventsPrunerOptions) {
    this.orm = opts.orm;
    this.logger = opts.logger.child({ component: "processed-events-pruner" });
    this.retentionMs = opts.retentionMs ?? PROCESSED_EVENTS_RETENTION_MS;
    this.intervalMs = opts.intervalMs ?? 5 * 60_000;
    this.limit = opts.limit ?? 10_000;
    const table = schemaTable(opts.orm, "processed_events");
    this.deleteSql = `delete from ${table} where (consumer_group, event_id) in (
        select consumer_group, event_id from ${table} where processed_at < now() - make_interval(secs => ?)
        limit ? for update skip locked)`;
  }

  /** Sweeps now, then every interval until stop(). */
  start(): void {
    if (this.timer) return;
    const tick = () => {
      this.running ??= this.sweep()
        .catch((err: unknown) => this.logger.warn({ err }, "could not prune processed events; trying again at the next sweep"))
        .finally(() => (this.running = undefined));
    };
    this.timer = setInterval(tick, this.intervalMs);
    this.timer.unref();
    tick();
  }

  /** One bounded delete; returns how many rows it deleted. */
  async sweep(): Promise<number> {
    const result = await this.orm.em.fork().execute<{ affectedRows: number }>(this.deleteSql, [this.retentionMs / 1000, this.limit], "run");
    if (result.affectedRows > 0) this.logger.debug({ deleted: result.affectedRows }, "pruned processed events");
    return result.affectedRows;
  }

  /** Stops sweeping and waits for a sweep in flight. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
