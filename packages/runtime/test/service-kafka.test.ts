import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { setTimeout as delay } from "node:timers/promises";
import { create } from "@bufbuild/protobuf";
import type { MikroORM } from "@mikro-orm/postgresql";
import { migrateToHead, openDatabase } from "@sca/db";
import {
  CreateOutboxTable,
  CreateProcessedEventsTable,
  OutboxMessage,
  ProcessedEvent,
  createKafka,
  enqueue,
  topicContract,
  uuidv7,
  type EventMeta,
} from "@sca/kafka";
import { createLogger } from "@sca/log";
import { AuditEventSchema } from "@sca/proto/sca/events/v1/audit_pb.ts";
import { testServers, uniqueName } from "@sca/testkit";
import { openServiceKafka } from "../src/service-kafka.ts";

// What runService gives a service that asks for `kafka: { outbox: true }`, over a schema of its own.
describe("a service's Kafka", () => {
  const schema = uniqueName("runtime_kafka");
  const topic = topicContract(uniqueName("sca_test_runtime"), AuditEventSchema);
  const logger = createLogger("runtime-test", "WARNING");
  const config = {
    KAFKA_BROKERS: testServers().kafkaBrokers,
    KAFKA_TOPIC_PREFIX: `${uniqueName("test")}.`,
    KAFKA_FETCH_MAX_WAIT_MS: 250,
  };
  let orm: MikroORM;

  beforeAll(async () => {
    orm = await openDatabase({
      url: testServers().databaseUrl,
      schema,
      entities: [OutboxMessage, ProcessedEvent],
      migrations: [CreateOutboxTable, CreateProcessedEventsTable],
      logger,
    });
    await migrateToHead(orm);
  });

  afterAll(async () => {
    await orm.em.getConnection().execute(`drop schema "${schema}" cascade`);
    await orm.close();
    const admin = createKafka({
      brokers: config.KAFKA_BROKERS,
      clientId: uniqueName("runtime_test"),
      logger,
      topicPrefix: "",
    }).admin();
    await admin.connect();
    const own = (await admin.listTopics()).filter((t) => t.startsWith(config.KAFKA_TOPIC_PREFIX));
    if (own.length > 0) await admin.deleteTopics({ topics: own });
    await admin.disconnect();
  });

  it("publishes what a handler enqueued once woken, delivers it to its consumers, and closes them", async () => {
    const closers: { name: string; close: () => Promise<unknown> }[] = [];
    const use = { outbox: true, consumes: [topic.topic] };
    const kafka = openServiceKafka(uniqueName("runtime_test"), use, {
      config,
      orm,
      logger,
      addCloser: (name, close) => void closers.push({ name, close }),
    });
    const seen: EventMeta[] = [];
    kafka.context.consume({
      groupId: uniqueName("runtime_test"),
      topic,
      handle: (_em, _message, meta) => {
        seen.push(meta);
        return Promise.resolve();
      },
    });
    await kafka.joined();

    const eventId = await orm.em
      .fork()
      .transactional((em) =>
        Promise.resolve(enqueue(em, topic, "actor-1", create(AuditEventSchema, { action: "service.started" }))),
      );
    kafka.context.wakeRelay();
    for (const deadline = Date.now() + 30_000; seen.length === 0 && Date.now() < deadline;) await delay(100);

    expect(seen.map((m) => m.eventId)).toEqual([eventId]);
    for (const closer of [...closers.reverse(), ...kafka.closers]) await closer.close();
    expect((await orm.em.fork().findOneOrFail(OutboxMessage, eventId)).publishedAt).toBeInstanceOf(Date);
  }, 60_000);

  it("consumes only the topics its definition declares (those migrate creates)", () => {
    const closers: { name: string; close: () => Promise<unknown> }[] = [];
    const use = { consumes: ["sca.some.other.topic"] };
    const kafka = openServiceKafka(uniqueName("runtime_test"), use, {
      config,
      orm,
      logger,
      addCloser: (name, close) => void closers.push({ name, close }),
    });
    expect(() =>
      kafka.context.consume({ groupId: uniqueName("runtime_test"), topic, handle: () => Promise.resolve() }),
    ).toThrow(`${topic.topic} is not among the topics in kafka.consumes`);
    expect(closers).toEqual([]);
  });

  it("prunes processed_events past the retention once it consumes", async () => {
    const processedEvents = `"${schema}".processed_events`;
    const [old, recent] = [uuidv7(), uuidv7()];
    await orm.em.fork().execute(
      `insert into ${processedEvents} (consumer_group, event_id, processed_at) values
      ('an-old-group', ?, now() - interval '15 days'), ('an-old-group', ?, now() - interval '13 days')`,
      [old, recent],
    );
    const closers: { name: string; close: () => Promise<unknown> }[] = [];
    const use = { consumes: [topic.topic] };
    const kafka = openServiceKafka(uniqueName("runtime_test"), use, {
      config,
      orm,
      logger,
      addCloser: (name, close) => void closers.push({ name, close }),
    });
    kafka.context.consume({ groupId: uniqueName("runtime_test"), topic, handle: () => Promise.resolve() });
    await kafka.joined();

    const left = async () =>
      (
        await orm.em
          .fork()
          .execute<{ event_id: string }[]>(
            `select event_id from ${processedEvents} where consumer_group = 'an-old-group'`,
          )
      ).map((r) => r.event_id);
    for (const deadline = Date.now() + 30_000; (await left()).includes(old) && Date.now() < deadline;) await delay(100);
    expect(await left()).toEqual([recent]);
    expect(closers.map((c) => c.name)).toContain("processed events pruning");
    for (const closer of [...closers.reverse(), ...kafka.closers]) await closer.close();
  }, 60_000);
});
