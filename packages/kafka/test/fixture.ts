// What the Kafka tests share: a fresh schema with the outbox, processed_events and a table the test handlers
// write to, a topic prefix of their own (so the real topic names are theirs too), real relays and consumers, and a
// clean-up that removes all of it.
import { setTimeout as delay } from "node:timers/promises";
import { create } from "@bufbuild/protobuf";
import { defineEntity, p, type EntityManager, type MikroORM } from "@mikro-orm/postgresql";
import { Migration, migrateToHead, openDatabase } from "@sca/db";
import { createLogger, type Logger } from "@sca/log";
import { AuditEventSchema, type AuditEvent } from "@sca/proto/sca/events/v1/audit_pb.ts";
import { testServers, uniqueName } from "@sca/testkit";
import {
  CreateOutboxTable,
  CreateProcessedEventsTable,
  OutboxMessage,
  OutboxRelay,
  ProcessedEvent,
  auditEventsTopic,
  createKafka,
  enqueue,
  ensureTopics,
  runIdempotentConsumer,
  topicContract,
  type EventHandler,
  type EventMeta,
  type KafkaClient,
  type OutboxRelayOptions,
  type TopicContract,
} from "../src/index.ts";

/** A row per applied event, written by test handlers in the consumer's transaction. */
export const AppliedEvent = defineEntity({
  name: "AppliedEvent",
  tableName: "applied_events",
  properties: {
    id: p.integer().primary().autoincrement(),
    eventId: p.uuid(),
    action: p.text(),
  },
});

class CreateAppliedEventsTable extends Migration {
  up(): void {
    this.addSql("create table applied_events (id serial primary key, event_id uuid not null, action text not null)");
  }
}

export type AuditTopic = TopicContract<typeof AuditEventSchema>;

export interface DeliveredRecord {
  key: string | undefined;
  value: Buffer | null;
  headers: Record<string, string>;
}

export class KafkaFixture {
  readonly schema = uniqueName("kafka_test");
  /** The real audit topic, under the prefix. */
  readonly topic: AuditTopic = auditEventsTopic;
  readonly logger: Logger = createLogger("kafka-test", "WARNING");
  readonly kafka: KafkaClient;
  private ormInstance: MikroORM | undefined;
  private readonly stoppers: (() => Promise<void>)[] = [];

  constructor() {
    this.kafka = createKafka({
      brokers: testServers().kafkaBrokers,
      clientId: uniqueName("kafka_test"),
      logger: this.logger,
      topicPrefix: `${uniqueName("test")}.`,
    });
  }

  get orm(): MikroORM {
    if (!this.ormInstance) throw new Error("open() first");
    return this.ormInstance;
  }

  async open(): Promise<this> {
    this.ormInstance = await openDatabase({
      url: testServers().databaseUrl,
      schema: this.schema,
      entities: [OutboxMessage, ProcessedEvent, AppliedEvent],
      migrations: [CreateOutboxTable, CreateProcessedEventsTable, CreateAppliedEventsTable],
      logger: this.logger,
    });
    await migrateToHead(this.orm);
    return this;
  }

  async close(): Promise<void> {
    for (const stop of this.stoppers.reverse()) await stop();
    await this.orm.em.getConnection().execute(`drop schema "${this.schema}" cascade`);
    await this.orm.close();
    const admin = this.kafka.admin();
    await admin.connect();
    const own = (await admin.listTopics()).filter((t) => t.startsWith(this.kafka.topicPrefix));
    if (own.length > 0) await admin.deleteTopics({ topics: own });
    await admin.disconnect();
  }

  /** Another audit topic of this test (under its prefix, deleted with the rest). */
  auditTopic(): AuditTopic {
    return topicContract(uniqueName("sca_test_audit"), AuditEventSchema);
  }

  startRelay(opts: Partial<OutboxRelayOptions> = {}): OutboxRelay {
    const relay = new OutboxRelay({
      kafka: this.kafka,
      orm: this.orm,
      logger: this.logger,
      pollIntervalMs: 200,
      ...opts,
    });
    relay.start();
    this.stoppers.push(() => relay.stop());
    return relay;
  }

  /** An idempotent consumer whose handler records each event in applied_events (and in `seen`). */
  async startConsumer(
    opts: {
      topic?: AuditTopic;
      handle?: EventHandler<typeof AuditEventSchema>;
      afterEnqueued?: () => void;
      acts?: (message: AuditEvent) => boolean;
      batched?: boolean;
    } = {},
  ) {
    const seen: { message: AuditEvent; meta: EventMeta }[] = [];
    const groupId = uniqueName("kafka_test_group");
    const consumer = await runIdempotentConsumer({
      kafka: this.kafka,
      groupId,
      topic: opts.topic ?? this.topic,
      orm: this.orm,
      logger: this.logger,
      afterEnqueued: opts.afterEnqueued,
      acts: opts.acts,
      batched: opts.batched,
      handle:
        opts.handle ??
        ((em, message, meta) => {
          em.create(AppliedEvent, { eventId: meta.eventId, action: message.action });
          seen.push({ message, meta });
          return Promise.resolve();
        }),
    });
    this.stoppers.push(() => consumer.stop());
    return { seen, groupId, stop: () => consumer.stop() };
  }

  /** Every record of the logical `topic` (under the prefix), read by a plain consumer group of its own, as it arrives. */
  async recordTopic(topic: string): Promise<DeliveredRecord[]> {
    const records: DeliveredRecord[] = [];
    await ensureTopics(this.kafka, [topic]);
    const consumer = this.kafka.consumer({ groupId: uniqueName("kafka_test_recorder") });
    await consumer.connect();
    await consumer.subscribe({ topic: this.kafka.topicName(topic), fromBeginning: true });
    await consumer.run({
      eachMessage: ({ message }) => {
        const headers = Object.fromEntries(Object.entries(message.headers ?? {}).map(([k, v]) => [k, String(v)]));
        records.push({ key: message.key?.toString(), value: message.value, headers });
        return Promise.resolve();
      },
    });
    this.stoppers.push(() => consumer.disconnect());
    return records;
  }

  /** Commits one transaction that enqueues an audit event with `action`; returns its event id. */
  enqueueCommitted(key: string, action: string, topic: AuditTopic = this.topic): Promise<string> {
    return this.orm.em.fork().transactional((em) => Promise.resolve(enqueue(em, topic, key, auditEvent(action))));
  }

  async appliedCount(eventId: string): Promise<number> {
    return this.orm.em.fork().count(AppliedEvent, { eventId });
  }

  em(): EntityManager {
    return this.orm.em.fork();
  }
}

export function auditEvent(action: string, details: Record<string, string> = {}): AuditEvent {
  return create(AuditEventSchema, { source: "kafka-test", action, details });
}

/** Polls until `check` holds; the generous limit only bounds a test that would otherwise hang. */
export async function waitFor(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await delay(100);
  }
}
