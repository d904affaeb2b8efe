// Deletes published outbox rows once they are past the retention (kept that long for inspection). A periodic job
// of the runtime beside the relay: each run deletes in bounded chunks until none is left, stopping between chunks
// when the service stops.
import type { MikroORM } from "@mikro-orm/postgresql";
import { schemaTable } from "./schema-table.ts";

export interface OutboxSweepOptions {
  orm: MikroORM;
  /** Published rows are kept this long, then deleted. */
  retentionMs?: number;
  /** Time between sweeps. */
  intervalMs?: number;
}

const SWEEP_CHUNK = 1000;

export class OutboxSweep {
  readonly name = "outbox sweep";
  readonly everyMs: number;
  private readonly orm: MikroORM;
  private readonly retentionMs: number;
  private readonly sql: string;

  constructor(opts: OutboxSweepOptions) {
    this.orm = opts.orm;
    this.retentionMs = opts.retentionMs ?? 7 * 24 * 3600_000;
    this.everyMs = opts.intervalMs ?? 10 * 60_000;
    const outbox = schemaTable(opts.orm, "outbox");
    this.sql = `delete from ${outbox} where id in (
        select id from ${outbox} where published_at < now() - make_interval(secs => ?) limit ${SWEEP_CHUNK})`;
  }

  /** One sweep; returns how many rows it deleted. */
  async run(signal?: AbortSignal): Promise<number> {
    let total = 0;
    let deleted: number;
    do {
      const result = await this.orm.em.fork().execute<{ affectedRows: number }>(this.sql, [this.retentionMs / 1000], "run");
      deleted = result.affectedRows;
      total += deleted;
    } while (deleted === SWEEP_CHUNK && !signal?.aborted);
    return total;
  }
}
