import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { fromBinary, toBinary } from "@bufbuild/protobuf";
import kafkajs from "kafkajs";
import { withRequestId } from "@sca/log";
import { AuditEventSchema } from "@sca/proto/sca/events/v1/audit_pb.ts";
import { OutboxMessage, OutboxSweep, deadLetterTopic, enqueue, ensureTopics, uuidv7 } from "../src/index.ts";
import { KafkaFixture, auditEvent, waitFor, type DeliveredRecord } from "./fixture.ts";

const actionOf = (record: DeliveredRecord) => fromBinary(AuditEventSchema, record.value!).action;

describe("the outbox relay", () => {
  let fx: KafkaFixture;
  beforeEach(async () => {
    fx = await new KafkaFixture().open();
  });
  afterEach(() => fx.close());

  it("publishes a committed event with its headers, and the consumer applies it", async () => {
    const wire = await fx.recordTopic(fx.topic.topic);
    const { seen } = await fx.startConsumer();
    const relay = fx.startRelay({ pollIntervalMs: 60_000 }); // only wake() makes it look soon

    const eventId = await withRequestId("req-outbox-1", () =>
      fx.em().transactional((em) => Promise.resolve(enqueue(em, fx.topic, "actor-1", auditEvent("project.created")))),
    );
    relay.wake();

    // The handler sees the record inside the consumer's transaction; it is applied once that commits.
    await waitFor("the event to be applied", async () => seen.length === 1 && (await fx.appliedCount(eventId)) === 1);
    expect(seen[0]!.meta).toMatchObject({
      eventId,
      eventType: "sca.events.v1.AuditEvent",
      requestId: "req-outbox-1",
      key: "actor-1",
    });
    expect(seen[0]!.message.action).toBe("project.created");
    expect(seen[0]!.message.eventId).toBe(eventId); // the message's own event_id agrees with the header
    expect(await fx.appliedCount(eventId)).toBe(1);
    await waitFor("the record on the wire", () => wire.length === 1);
    expect(wire[0]!.headers).toEqual({
      "event-id": eventId,
      "event-type": "sca.events.v1.AuditEvent",
      "request-id": "req-outbox-1",
    });
    expect(wire[0]!.key).toBe("actor-1");
    // The relay marks the row in the transaction that sent it: a consumer may apply the event before that commits.
    await waitFor("the row marked published", async () => {
      const row = await fx.em().findOneOrFail(OutboxMessage, eventId);
      return row.publishedAt instanceof Date;
    });
    const row = await fx.em().findOneOrFail(OutboxMessage, eventId);
    expect(row.attempts).toBe(1);
  }, 60_000);

  it("publishes nothing for a transaction that rolled back", async () => {
    const wire = await fx.recordTopic(fx.topic.topic);
    fx.startRelay();

    await expect(
      fx.em().transactional((em) => {
        enqueue(em, fx.topic, "actor-2", auditEvent("rolled.back"));
        throw new Error("the business rule refused");
      }),
    ).rejects.toThrow("the business rule refused");
    // Same key, so the same partition: had the first been published, it would arrive before this one.
    const committed = await fx.enqueueCommitted("actor-2", "committed");

    await waitFor("the committed event", () => wire.some((r) => r.headers["event-id"] === committed));
    expect(wire.map(actionOf)).toEqual(["committed"]);
    expect(await fx.em().count(OutboxMessage)).toBe(1);
  }, 60_000);

  it("publishes again after dying between sending and marking, and the consumer applies the event once", async () => {
    // A trigger makes marking fail after the batch was sent: the state a crash at that moment leaves behind.
    const outbox = `"${fx.schema}".outbox`;
    const db = fx.orm.em.getConnection();
    await db.execute(`create function "${fx.schema}".refuse_marking() returns trigger language plpgsql as
      $$ begin raise exception 'relay died before marking'; end $$`);
    await db.execute(`create trigger refuse_marking before update of published_at on ${outbox} for each row
      when (new.published_at is not null) execute function "${fx.schema}".refuse_marking()`);
    const wire = await fx.recordTopic(fx.topic.topic);
    await fx.startConsumer();
    fx.startRelay({ minBackoffMs: 100, maxBackoffMs: 500 });

    const eventId = await fx.enqueueCommitted("actor-3", "scan.finished");
    await waitFor("the event to be applied", async () => (await fx.appliedCount(eventId)) === 1);
    await db.execute(`drop trigger refuse_marking on ${outbox}`);
    await waitFor(
      "the row to be marked",
      async () => (await fx.em().findOneOrFail(OutboxMessage, eventId)).publishedAt !== null,
    );
    // A later event of the same key is consumed after every copy of the first.
    const later = await fx.enqueueCommitted("actor-3", "scan.archived");
    await waitFor("the later event to be applied", async () => (await fx.appliedCount(later)) === 1);

    expect(wire.filter((r) => r.headers["event-id"] === eventId).length).toBeGreaterThanOrEqual(2);
    expect(await fx.appliedCount(eventId)).toBe(1);
    const row = await fx.em().findOneOrFail(OutboxMessage, eventId);
    expect(row.attempts).toBeGreaterThanOrEqual(2);
    expect(row.lastError).toContain("relay died before marking");
  }, 60_000);

  it("keeps events while Kafka refuses them and publishes them once it accepts", async () => {
    const topic = fx.auditTopic();
    // ensureTopics waits out a young broker that does not know the new topic yet; kafkajs's waitForLeaders does not.
    await ensureTopics(fx.kafka, [topic.topic], [{ name: "max.message.bytes", value: "200" }]);
    const admin = fx.kafka.admin();
    await admin.connect();
    const wire = await fx.recordTopic(topic.topic);
    fx.startRelay({ minBackoffMs: 100, maxBackoffMs: 500 });

    const eventId = await fx.orm.em
      .fork()
      .transactional((em) =>
        Promise.resolve(enqueue(em, topic, "actor-4", auditEvent("sbom.imported", { note: "x".repeat(2000) }))),
      );
    await waitFor("a refused attempt", async () => (await fx.em().findOneOrFail(OutboxMessage, eventId)).attempts >= 1);
    const refused = await fx.em().findOneOrFail(OutboxMessage, eventId);
    expect(refused.publishedAt).toBeNull();
    expect(refused.lastError).toMatch(/larger than the max message size/);

    await admin.alterConfigs({
      validateOnly: false,
      resources: [
        {
          type: kafkajs.ConfigResourceTypes.TOPIC,
          name: fx.kafka.topicName(topic.topic),
          configEntries: [{ name: "max.message.bytes", value: "1048588" }],
        },
      ],
    });
    await admin.disconnect();
    await waitFor("the event on the wire", () => wire.some((r) => r.headers["event-id"] === eventId));
    await waitFor(
      "the row to be marked",
      async () => (await fx.em().findOneOrFail(OutboxMessage, eventId)).publishedAt !== null,
    );
  }, 60_000);

  it("publishes each key in order while several relays share the outbox", async () => {
    const keys = ["team-a", "team-b", "team-c"];
    const enqueued = new Map<string, string[]>(keys.map((k) => [k, []]));
    for (let i = 0; i < 60; i++) {
      const key = keys[i % keys.length]!;
      enqueued.get(key)!.push(await fx.enqueueCommitted(key, `step.${i}`));
    }
    const wire = await fx.recordTopic(fx.topic.topic);
    for (let i = 0; i < 3; i++) fx.startRelay({ batchSize: 7 });

    await waitFor("all 60 events", () => new Set(wire.map((r) => r.headers["event-id"])).size === 60);
    for (const key of keys) {
      const published = [...new Set(wire.filter((r) => r.key === key).map((r) => r.headers["event-id"]))];
      expect(published).toEqual(enqueued.get(key));
    }
  }, 60_000);

  it("stores the logical topic and publishes it under the prefix, rows written before there were prefixes too", async () => {
    const topic = fx.auditTopic();
    const wire = await fx.recordTopic(topic.topic);
    const { seen } = await fx.startConsumer({ topic });
    // A row as the service wrote it before topic prefixes existed: the topic's name, nothing else.
    const before = uuidv7();
    await fx
      .em()
      .execute(`insert into "${fx.schema}".outbox (id, topic, key, type, payload, headers) values (?, ?, ?, ?, ?, ?)`, [
        before,
        topic.topic,
        "actor-6",
        "sca.events.v1.AuditEvent",
        Buffer.from(toBinary(AuditEventSchema, auditEvent("written.before"))),
        JSON.stringify({ "event-id": before, "event-type": "sca.events.v1.AuditEvent" }),
      ]);
    const after = await fx.enqueueCommitted("actor-6", "written.after", topic);
    fx.startRelay();

    await waitFor("both events to be applied", () => seen.length === 2);
    expect(seen.map((s) => [s.meta.eventId, s.message.action, s.meta.topic])).toEqual([
      [before, "written.before", topic.topic],
      [after, "written.after", topic.topic],
    ]);
    expect((await fx.em().findOneOrFail(OutboxMessage, after)).topic).toBe(topic.topic);
    await waitFor("both records on the prefixed topic", () => wire.length === 2);
    const admin = fx.kafka.admin();
    await admin.connect();
    const onBroker = await admin.listTopics();
    await admin.disconnect();
    expect(onBroker).toEqual(
      expect.arrayContaining([fx.kafka.topicName(topic.topic), fx.kafka.topicName(deadLetterTopic(topic.topic))]),
    );
    expect(onBroker).not.toContain(topic.topic);
    expect(onBroker).not.toContain(deadLetterTopic(topic.topic));
  }, 60_000);

  it("deletes published rows older than the retention (the outbox sweep beside it)", async () => {
    const wire = await fx.recordTopic(fx.topic.topic);
    fx.startRelay();
    const sweep = new OutboxSweep({ orm: fx.orm, retentionMs: 0 });

    const eventId = await fx.enqueueCommitted("actor-5", "release.published");
    await waitFor("the event on the wire", () => wire.some((r) => r.headers["event-id"] === eventId));
    await waitFor("the row to be swept", async () => {
      await sweep.run();
      return (await fx.em().count(OutboxMessage)) === 0;
    });
  }, 60_000);
});
