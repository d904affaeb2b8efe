import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { toBinary } from "@bufbuild/protobuf";
import { Partitioners, type Message } from "kafkajs";
import { AuditEventSchema } from "@sca/proto/sca/events/v1/audit_pb.ts";
import { deadLetterTopic, enqueue, OutboxMessage, uuidv7 } from "../src/index.ts";
import { AppliedEvent, KafkaFixture, auditEvent, waitFor } from "./fixture.ts";

// Records produced by hand, as a relay or another service would send them.
function auditRecord(key: string, action: string, eventId = uuidv7()): Message & { eventId: string } {
  const value = Buffer.from(toBinary(AuditEventSchema, auditEvent(action)));
  return { eventId, key, value, headers: { "event-id": eventId, "event-type": "sca.events.v1.AuditEvent" } };
}

describe("the idempotent consumer", () => {
  let fx: KafkaFixture;
  const produce = async (topic: string, messages: Message[]) => {
    const producer = fx.kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    await producer.send({ topic: fx.kafka.topicName(topic), acks: -1, messages });
    await producer.disconnect();
  };
  beforeEach(async () => {
    fx = await new KafkaFixture().open();
  });
  afterEach(() => fx.close());

  /** The ids the group recorded as processed, in order. */
  const processedIds = async (groupId: string): Promise<string[]> =>
    (
      await fx
        .em()
        .getConnection()
        .execute<{ event_id: string }[]>(
          `select event_id from "${fx.schema}".processed_events where consumer_group = ? order by event_id`,
          [groupId],
        )
    ).map((r) => r.event_id);

  it("applies an event delivered twice under the same id once", async () => {
    const { groupId } = await fx.startConsumer();
    const first = auditRecord("actor-1", "team.renamed");
    const sentinel = auditRecord("actor-1", "team.archived");
    await produce(fx.topic.topic, [first, first, sentinel]);

    await waitFor("the sentinel to be applied", async () => (await fx.appliedCount(sentinel.eventId)) === 1);
    expect(await fx.appliedCount(first.eventId)).toBe(1);
    expect(await processedIds(groupId)).toEqual([first.eventId, sentinel.eventId].sort());
  }, 60_000);

  it("sends unusable records to the dead-letter topic, skips other message types and goes on", async () => {
    const deadLetters = await fx.recordTopic(deadLetterTopic(fx.topic.topic));
    await fx.startConsumer();
    const garbageId = uuidv7();
    const valid = auditRecord("actor-2", "policy.changed");
    // One key, so one partition, consumed in this order.
    await produce(fx.topic.topic, [
      {
        key: "actor-2",
        value: Buffer.from("not protobuf at all"),
        headers: { "event-id": garbageId, "event-type": "sca.events.v1.AuditEvent" },
      },
      { key: "actor-2", value: valid.value, headers: { "event-type": "sca.events.v1.AuditEvent" } },
      {
        key: "actor-2",
        value: Buffer.from("whatever"),
        headers: { "event-id": uuidv7(), "event-type": "sca.events.v1.SomethingElse" },
      },
      valid,
    ]);

    await waitFor("the valid event to be applied", async () => (await fx.appliedCount(valid.eventId)) === 1);
    await waitFor("two dead letters", () => deadLetters.length === 2);
    expect(deadLetters[0]).toMatchObject({ key: "actor-2", value: Buffer.from("not protobuf at all") });
    expect(deadLetters[0]!.headers["event-id"]).toBe(garbageId);
    expect(deadLetters[0]!.headers["dlq-source"]).toMatch(new RegExp(`^${fx.topic.topic}/\\d+/\\d+$`));
    expect(deadLetters[0]!.headers["dlq-reason"]).toMatch(/^not a sca\.events\.v1\.AuditEvent/);
    expect(deadLetters[1]!.headers["dlq-reason"]).toBe("no UUID in the event-id header");
    expect(await fx.em().count(AppliedEvent)).toBe(1);
  }, 60_000);

  it("rolls back a failing handler's writes and applies the event on a later attempt", async () => {
    let calls = 0;
    await fx.startConsumer({
      handle: async (em, message, meta) => {
        calls += 1;
        em.create(AppliedEvent, { eventId: meta.eventId, action: message.action });
        await em.flush();
        if (calls === 1) throw new Error("the database hiccuped");
      },
    });
    const record = auditRecord("actor-3", "finding.suppressed");
    await produce(fx.topic.topic, [record]);

    await waitFor("the event to be applied", async () => (await fx.appliedCount(record.eventId)) === 1);
    expect(calls).toBe(2);
  }, 60_000);

  it("aborts the handler's signal when it stops, and the event stays unapplied for the partition's next owner", async () => {
    let handlerStarted!: () => void;
    const started = new Promise<void>((resolve) => (handlerStarted = resolve));
    let abortedInHandler = false;
    const { groupId, stop } = await fx.startConsumer({
      // A long piece of work that gives up when told to.
      handle: (_em, _message, _meta, signal) =>
        new Promise<void>((_resolve, reject) => {
          handlerStarted();
          signal.addEventListener(
            "abort",
            () => {
              abortedInHandler = signal.aborted;
              reject(new Error("gave up: the consumer is stopping"));
            },
            { once: true },
          );
        }),
    });
    const record = auditRecord("actor-4", "scan.started");
    await produce(fx.topic.topic, [record]);

    await started;
    await stop();
    expect(abortedInHandler).toBe(true);
    expect(await processedIds(groupId)).toEqual([]);
  }, 60_000);
  it("calls afterEnqueued once the transaction of a handler that enqueued has committed, and only then", async () => {
    // What afterEnqueued saw: how many of the handler's outbox rows another connection could read at that moment.
    const visibleAtCall: number[] = [];
    const { seen } = await fx.startConsumer({
      handle: (em, message, meta) => {
        em.create(AppliedEvent, { eventId: meta.eventId, action: message.action });
        seen.push({ message, meta });
        if (message.action === "team.renamed") enqueue(em, fx.topic, "reply", auditEvent(`reply.${meta.eventId}`));
        return Promise.resolve();
      },
      afterEnqueued: () => {
        void fx
          .em()
          .count(OutboxMessage, { key: "reply" })
          .then((n) => visibleAtCall.push(n));
      },
    });
    const quiet = auditRecord("actor-3", "team.archived");
    const replying = auditRecord("actor-3", "team.renamed");
    await produce(fx.topic.topic, [quiet, replying]);

    await waitFor("both applied", () => seen.length === 2);
    await waitFor("the call's look at the outbox", () => visibleAtCall.length === 1);
    // Called once (the event that enqueued nothing did not wake anyone), after its row was committed.
    expect(visibleAtCall).toEqual([1]);
  }, 60_000);

  it("applies a batch's events in one transaction, and a batch delivered again doubles nothing", async () => {
    // The transaction each event was applied in, by event id.
    const transactionOf = new Map<string, string>();
    const { groupId } = await fx.startConsumer({
      batched: true,
      handle: async (em, message, meta) => {
        em.create(AppliedEvent, { eventId: meta.eventId, action: message.action });
        const [row] = await em
          .getConnection()
          .execute<{ tx: string }[]>("select txid_current()::text as tx", [], "all", em.getTransactionContext());
        transactionOf.set(meta.eventId, row!.tx);
      },
    });
    // One key, so one partition; one send, so one fetched batch.
    const batch = ["a", "b", "c", "d"].map((action) => auditRecord("actor-5", `batch.${action}`));
    await produce(fx.topic.topic, batch);
    await waitFor("the batch to be applied", () => transactionOf.size === batch.length);
    expect(new Set(transactionOf.values()).size).toBe(1);

    // The same batch again (a relay's resend, an offset commit lost), behind it one new event.
    const sentinel = auditRecord("actor-5", "batch.sentinel");
    await produce(fx.topic.topic, [...batch, sentinel]);
    await waitFor("the sentinel to be applied", async () => (await fx.appliedCount(sentinel.eventId)) === 1);
    for (const record of batch) expect(await fx.appliedCount(record.eventId)).toBe(1);
    expect(await fx.em().count(AppliedEvent)).toBe(batch.length + 1);
    expect(await processedIds(groupId)).toHaveLength(batch.length + 1);
  }, 60_000);

  it("rolls a failing batch back whole and applies each of its events once on a later attempt", async () => {
    let failed = false;
    const calls = new Map<string, number>();
    await fx.startConsumer({
      batched: true,
      handle: async (em, message, meta) => {
        calls.set(meta.eventId, (calls.get(meta.eventId) ?? 0) + 1);
        em.create(AppliedEvent, { eventId: meta.eventId, action: message.action });
        await em.flush();
        if (message.action === "rollback.c" && !failed) {
          failed = true;
          throw new Error("the database hiccuped");
        }
      },
    });
    const batch = ["a", "b", "c", "d"].map((action) => auditRecord("actor-6", `rollback.${action}`));
    await produce(fx.topic.topic, batch);
    await waitFor("the last event to be applied", async () => (await fx.appliedCount(batch[3]!.eventId)) === 1);
    for (const record of batch) expect(await fx.appliedCount(record.eventId)).toBe(1);
    // The events before the failing one ran twice (rolled back, then applied), the one after once.
    expect(batch.map((record) => calls.get(record.eventId))).toEqual([2, 2, 2, 1]);
  }, 60_000);

  it("passes by the events it does not act on: no handler, no transaction, no record of their id", async () => {
    const { groupId, seen } = await fx.startConsumer({ acts: (message) => message.action !== "team.viewed" });
    const ignored = auditRecord("actor-7", "team.viewed");
    const acted = auditRecord("actor-7", "team.renamed");
    await produce(fx.topic.topic, [ignored, acted]);

    await waitFor("the event it acts on to be applied", async () => (await fx.appliedCount(acted.eventId)) === 1);
    expect(seen.map(({ meta }) => meta.eventId)).toEqual([acted.eventId]);
    expect(await processedIds(groupId)).toEqual([acted.eventId]);
  }, 60_000);
});
