// Publishes the outbox. Each batch is one database transaction: lock unpublished rows, send them with an
// idempotent producer (acks from all in-sync replicas), mark them published. Rows are locked `for update skip
// locked` so replicas share the work, and a row waits while an earlier row of its key is held elsewhere, so
// each key is published in id order. A crash between sending and marking sends the batch again: delivery is
// at least once, and consumers apply each event id once. Rows store the logical topic (as rows written before
// topic prefixes existed do) and the relay publishes to its name under the client's prefix, so a deployment's
// pending rows follow a change of prefix. Its loop is not a periodic job (it goes again at once after a full batch,
// backs off after a failure and wakes on wake()); deleting published rows is one (OutboxSweep).
import { raw, type MikroORM } from "@mikro-orm/postgresql";
import { column, rawQuery } from "@sca/db";
import { Partitioners, type Producer } from "kafkajs";
import { scrubSecrets, type Logger } from "@sca/log";
import type { KafkaClient } from "./client.ts";
import { OutboxMessage } from "./outbox-table.ts";
import { schemaTable } from "./schema-table.ts";

export interface OutboxRelayOptions {
  kafka: KafkaClient;
  orm: MikroORM;
  logger: Logger;
  batchSize?: number;
  /** How often to look for rows when nobody calls wake(). */
  pollIntervalMs?: number;
  /** Back-off after a failed batch doubles from min to max. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
}

// What a claimed row answers (the claim locks rows, so it is SQL of its own: ADR 0005).
const CLAIMED = {
  id: column.text,
  topic: column.text,
  key: column.text,
  payload: column.bytes,
  headers: column.json<Record<string, string>>(),
};

export class OutboxRelay {
  private readonly kafka: KafkaClient;
  private readonly orm: MikroORM;
  private readonly logger: Logger;
  private readonly batchSize: number;
  private readonly pollIntervalMs: number;
  private readonly minBackoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly claimSql: string;
  private producer: Producer | undefined;
  private loop: Promise<void> | undefined;
  private stopping = false;
  private woken = false;
  private pending: { end: () => void; wakeable: boolean } | undefined;

  constructor(opts: OutboxRelayOptions) {
    this.kafka = opts.kafka;
    this.orm = opts.orm;
    this.logger = opts.logger.child({ component: "outbox-relay" });
    this.batchSize = opts.batchSize ?? 100;
    this.pollIntervalMs = opts.pollIntervalMs ?? 1000;
    this.minBackoffMs = opts.minBackoffMs ?? 500;
    this.maxBackoffMs = opts.maxBackoffMs ?? 30_000;
    const outbox = schemaTable(opts.orm, "outbox");
    this.claimSql = `with candidates as (
          select id, topic, key, payload, headers from ${outbox}
          where published_at is null order by id limit ? for update skip locked)
        select * from candidates c
        where not exists (
          select 1 from ${outbox} earlier
          where earlier.published_at is null and earlier.topic = c.topic and earlier.key = c.key and earlier.id < c.id
            and earlier.id not in (select id from candidates))
        order by c.id`;
  }

  start(): void {
    this.loop ??= this.run();
  }

  /** Publish now rather than at the next poll: call it after committing a transaction that enqueued. */
  wake(): void {
    this.woken = true;
    if (this.pending?.wakeable) this.pending.end();
  }

  /** Finishes the batch in flight, publishes what is left unless Kafka is failing, and disconnects. */
  async stop(): Promise<void> {
    if (!this.loop) return;
    this.stopping = true;
    this.pending?.end();
    await this.loop;
    try {
      let published: number;
      do published = await this.publishBatch();
      while (published > 0);
    } catch (err) {
      this.logger.warn({ err }, "stopped with events unpublished; the next relay publishes them");
    }
    await this.dropProducer();
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (!this.stopping) {
      try {
        const published = await this.publishBatch();
        failures = 0;
        if (published < this.batchSize) await this.pause(this.pollIntervalMs, true);
      } catch (err) {
        failures += 1;
        const retryInMs = Math.min(this.maxBackoffMs, this.minBackoffMs * 2 ** (failures - 1));
        this.logger.warn({ err, failures, retryInMs }, "could not publish the outbox; retrying");
        await this.dropProducer();
        await this.pause(retryInMs, false);
      }
    }
  }

  private async publishBatch(): Promise<number> {
    this.woken = false; // rows committed from here on are seen by this batch or announce themselves again
    const producer = await this.connectedProducer();
    let batch: { id: string }[] = [];
    try {
      return await this.orm.em.fork().transactional(async (em) => {
        const claimed = await rawQuery(em, this.claimSql, [this.batchSize], CLAIMED);
        batch = claimed;
        if (batch.length === 0) return 0;
        const topicMessages = [...Map.groupBy(claimed, (row) => row.topic)].map(([topic, rows]) => ({
          topic: this.kafka.topicName(topic),
          messages: rows.map((row) => ({ key: row.key, value: row.payload, headers: row.headers })),
        }));
        await producer.sendBatch({ acks: -1, topicMessages });
        await em.nativeUpdate(
          OutboxMessage,
          { id: { $in: claimed.map((row) => row.id) } },
          { publishedAt: raw("now()"), attempts: raw("attempts + 1") },
        );
        return claimed.length;
      });
    } catch (err) {
      if (batch.length > 0) await this.recordFailure(batch, err);
      throw err;
    }
  }

  private async recordFailure(batch: { id: string }[], err: unknown): Promise<void> {
    const message = scrubSecrets(err instanceof Error ? err.message : String(err)).slice(0, 2000);
    // Best effort: the database may be what failed.
    await this.orm.em
      .fork()
      .nativeUpdate(
        OutboxMessage,
        { id: { $in: batch.map((row) => row.id) }, publishedAt: null },
        { attempts: raw("attempts + 1"), lastError: message },
      )
      .catch(() => undefined);
  }

  private async connectedProducer(): Promise<Producer> {
    if (this.producer) return this.producer;
    const producer = this.kafka.producer({
      idempotent: true,
      createPartitioner: Partitioners.DefaultPartitioner,
      // Bounded, so an outage ends the attempt (and the batch's transaction) and the relay backs off.
      retry: { retries: 5 },
    });
    try {
      await producer.connect();
    } catch (err) {
      await producer.disconnect().catch(() => undefined);
      throw err;
    }
    this.producer = producer;
    return producer;
  }

  // After a failure the idempotent producer's sequence state is uncertain, so the next attempt starts afresh.
  private async dropProducer(): Promise<void> {
    const producer = this.producer;
    this.producer = undefined;
    await producer?.disconnect().catch(() => undefined);
  }

  // Waits `ms`; stop() ends the wait, and so does wake() when `wakeable`. A wake() during the last batch ends
  // it at once: that batch may have looked before the waking transaction committed.
  private pause(ms: number, wakeable: boolean): Promise<void> {
    if (this.stopping || (wakeable && this.woken)) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.pending?.end(), ms);
      this.pending = {
        wakeable,
        end: () => {
          clearTimeout(timer);
          this.pending = undefined;
          resolve();
        },
      };
    });
  }
}
