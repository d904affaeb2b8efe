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
  /** Time between sweeps; the first runs as the job starts. */
  intervalMs?: number;
  /**
   * Rows deleted at most per sweep. At the defaults a service prunes 2.88 million rows a day, so it keeps up
   * with that many events a day; a backlog shrinks by that much a day.
   */
  limit?: number;
}

export const PROCESSED_EVENTS_RETENTION_MS = 14 * 24 * 3600_000;

/**
 * The pruning as a periodic job (its `run` is one sweep); the runtime runs it while the service consumes.
 */
export class ProcessedEventsPruner {
  readonly name = "processed events pruning";
  readonly everyMs: number;
  private readonly orm: MikroORM;
  private readonly logger: Logger;
  private readonly retentionMs: number;
  private readonly limit: number;
  private readonly deleteSql: string;

  constructor(opts: ProcessedEventsPrunerOptions) {
    this.orm = opts.orm;
    this.logger = opts.logger.child({ component: "processed-events-pruner" });
    this.retentionMs = opts.retentionMs ?? PROCESSED_EVENTS_RETENTION_MS;
    this.everyMs = opts.intervalMs ?? 5 * 60_000;
    this.limit = opts.limit ?? 10_000;
    const table = schemaTable(opts.orm, "processed_events");
    this.deleteSql = `delete from ${table} where (consumer_group, event_id) in (
        select consumer_group, event_id from ${table} where processed_at < now() - make_interval(secs => ?)
        limit ? for update skip locked)`;
  }

  /** The job's run: one sweep (a single statement, so there is nothing to give up half-way on stop). */
  run(): Promise<number> {
    return this.sweep();
  }

  /** One bounded delete; returns how many rows it deleted. */
  async sweep(): Promise<number> {
    const result = await this.orm.em.fork().execute<{ affectedRows: number }>(this.deleteSql, [this.retentionMs / 1000, this.limit], "run");
    if (result.affectedRows > 0) this.logger.debug({ deleted: result.affectedRows }, "pruned processed events");
    return result.affectedRows;
  }
}
