// A consumer that hands every record of some topics to this process, whatever other processes read them: each
// instance joins a group of its own (a fresh id per start) and reads from the newest offset, so the news is live and
// nothing is applied twice across instances. For fan-out to local listeners (the gateway's WebSockets), never for
// work: nothing is recorded, a record the handler throws on is logged and passed over, and poison is skipped.
import type { DescMessage, MessageShape } from "@bufbuild/protobuf";
import type { EachMessagePayload } from "kafkajs";
import { withRequestId, type Logger } from "@sca/log";
import type { KafkaClient } from "./client.ts";
import { readInboundEvent, type EventMeta } from "./inbound-event.ts";
import { ensureTopics, topicEnds, type TopicContract } from "./topics.ts";

export type BroadcastHandler<Desc extends DescMessage> = (message: MessageShape<Desc>, meta: EventMeta) => void;

export interface BroadcastConsumerOptions<Desc extends DescMessage> {
  kafka: KafkaClient;
  /** Unique per process, e.g. `gateway-<uuid>`: a shared id would split the records between instances. */
  groupId: string;
  /** Logical topics; each record is decoded with its topic's contract. */
  topics: readonly TopicContract<Desc>[];
  logger: Logger;
  handle: BroadcastHandler<Desc>;
}

export interface BroadcastConsumer {
  /** Leaves the group, deletes it from the broker (it is never joined again) and disconnects. */
  stop(): Promise<void>;
}

export async function runBroadcastConsumer<Desc extends DescMessage>(
  opts: BroadcastConsumerOptions<Desc>,
): Promise<BroadcastConsumer> {
  const { kafka, groupId } = opts;
  const logger = opts.logger.child({ component: "broadcast-consumer", groupId });
  const byBrokerTopic = new Map(opts.topics.map((c) => [kafka.topicName(c.topic), c]));
  await ensureTopics(
    kafka,
    opts.topics.map((c) => c.topic),
  );
  // Where each partition ends now: reading starts there (a seek, not the group's offset reset, so a record published
  // once start() has returned is never missed while the group settles).
  const admin = kafka.admin();
  await admin.connect();
  const starts = await Promise.all(
    [...byBrokerTopic.keys()].map(async (topic) => ({ topic, partitions: await topicEnds(admin, topic) })),
  ).finally(() => admin.disconnect());
  // The offset to read next per partition: the end at start, then one past the last record handed out.
  const nextOffsets = new Map<string, { topic: string; partition: number; offset: string }>();
  for (const { topic, partitions } of starts)
    for (const { partition, offset } of partitions)
      nextOffsets.set(`${partition}@${topic}`, { topic, partition, offset });
  const consumer = kafka.consumer({ groupId });
  await consumer.connect();
  await consumer.subscribe({ topics: [...byBrokerTopic.keys()], fromBeginning: false });
  // Seeks are queued on every join, before its first fetch: a consumer that crashed and restarted (a broker still
  // loading its coordinator at start-up does that) joins again with a fresh group state where earlier seeks are gone,
  // and a seek outside a join can land while no group state exists and throw. Each join carries on from the next
  // offsets, so nothing is missed or handed out twice across restarts.
  let joined!: () => void;
  const firstJoin = new Promise<void>((resolve) => (joined = resolve));
  consumer.on(consumer.events.GROUP_JOIN, () => {
    for (const seek of nextOffsets.values()) consumer.seek(seek);
    joined();
  });
  const hand = (record: EachMessagePayload): void => {
    const next = {
      topic: record.topic,
      partition: record.partition,
      offset: String(BigInt(record.message.offset) + 1n),
    };
    nextOffsets.set(`${record.partition}@${record.topic}`, next);
    const contract = byBrokerTopic.get(record.topic);
    if (!contract) return;
    const event = readInboundEvent(contract, record);
    if (event.kind === "poison") {
      logger.warn({ reason: event.reason, topic: contract.topic, offset: record.message.offset }, "record skipped");
      return;
    }
    if (event.kind !== "event") return;
    const { message, meta } = event;
    try {
      if (meta.requestId) withRequestId(meta.requestId, () => opts.handle(message, meta));
      else opts.handle(message, meta);
    } catch (err) {
      logger.error({ err, eventId: meta.eventId }, "could not hand out a record; passed over");
    }
  };
  // The handler is synchronous (it only queues frames): the offset moves on once it has run.
  await consumer.run({
    eachMessage: (record) => {
      hand(record);
      return Promise.resolve();
    },
  });
  await firstJoin;
  return {
    async stop() {
      await consumer.disconnect();
      const admin = kafka.admin();
      await admin.connect();
      try {
        await admin.deleteGroups([groupId]);
      } catch (err) {
        logger.debug({ err }, "could not delete the consumer group");
      } finally {
        await admin.disconnect();
      }
    },
  };
}
