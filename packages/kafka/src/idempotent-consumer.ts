// A consumer group that applies each event once: the handler's writes and the record of the event id commit
// in one transaction, a redelivered id is skipped, and the offset moves on only after that commit (kafkajs
// resolves a record's offset when eachMessage returns). Records that can never be applied go to the
// dead-letter topic instead of blocking their partition.
import { setTimeout as delay } from "node:timers/promises";
import type { DescMessage, MessageShape } from "@bufbuild/protobuf";
import type { EntityManager, MikroORM } from "@mikro-orm/postgresql";
import { Partitioners, type EachMessagePayload, type Producer } from "kafkajs";
import { withRequestId, type Logger } from "@sca/log";
import type { KafkaClient } from "./client.ts";
import { readInboundEvent, type EventMeta } from "./inbound-event.ts";
import { enqueuedThrough } from "./enqueue.ts";
import { recordProcessed } from "./processed-events-table.ts";
import { deadLetterTopic, ensureTopics, type TopicContract } from "./topics.ts";

/**
 * Applies one event. `signal` aborts when the consumer stops: a long handler gives up then (its transaction rolls
 * back and the record is delivered again to the partition's next owner).
 */
export type EventHandler<Desc extends DescMessage> = (
  em: EntityManager,
  message: MessageShape<Desc>,
  meta: EventMeta,
  signal: AbortSignal,
) => Promise<void>;

/** kafkajs's default heartbeat interval: a tenth of the default session timeout. */
const HEARTBEAT_EVERY_MS = 3_000;

export interface IdempotentConsumerOptions<Desc extends DescMessage> {
  kafka: KafkaClient;
  groupId: string;
  /** A logical topic: the consumer reads it, and writes dead letters, under the client's prefix. */
  topic: TopicContract<Desc>;
  orm: MikroORM;
  logger: Logger;
  /** Runs inside the transaction; what it writes through `em` commits with the event's record. */
  handle: EventHandler<Desc>;
  /**
   * A delay topic's due time: a record is applied no sooner than this (its partition waits, heartbeating, so the
   * group keeps it). Records of such a topic must fall due in the order they arrive (one delay per topic).
   */
  notBefore?: (message: MessageShape<Desc>) => Date | undefined;
  /**
   * Called once a transaction whose handler enqueued events has committed: the service wakes its outbox relay, so
   * those events (a scan job's outcome) leave now rather than at the relay's next poll.
   */
  afterEnqueued?: () => void;
}

export interface IdempotentConsumer {
  /** Aborts the handlers' signal, lets the record in hand end (or abandons its retries), leaves the group and disconnects. */
  stop(): Promise<void>;
}

export async function runIdempotentConsumer<Desc extends DescMessage>(
  opts: IdempotentConsumerOptions<Desc>,
): Promise<IdempotentConsumer> {
  const { kafka, groupId, topic: contract, orm, handle } = opts;
  const logger = opts.logger.child({ component: "consumer", groupId, topic: contract.topic });
  const deadLetters = deadLetterTopic(contract.topic);
  const stopping = new AbortController();

  const apply = async (message: MessageShape<Desc>, meta: EventMeta) => {
    const enqueued = await orm.em.fork().transactional(async (em) => {
      if (!(await recordProcessed(em, groupId, meta.eventId))) {
        logger.debug({ eventId: meta.eventId }, "event already applied; skipped");
        return false;
      }
      await handle(em, message, meta, stopping.signal);
      return enqueuedThrough(em);
    });
    if (enqueued) opts.afterEnqueued?.();
  };

  const settle = async (record: EachMessagePayload, producer: Producer) => {
    // A long handler (a scan job) keeps its partition: the member heartbeats while the record is in hand, so the
    // group does not think it dead after its session timeout and hand the record to another member meanwhile.
    const keepAlive = setInterval(() => void record.heartbeat().catch(() => undefined), HEARTBEAT_EVERY_MS);
    try {
      await settleRecord(record, producer);
    } catch (err) {
      // Stopping abandons the record (its next owner gets it again). What aborted is often a DOMException, which
      // kafkajs cannot wrap (it crashes the consumer and stalls the stop), so it gets a plain Error instead.
      // eslint-disable-next-line preserve-caught-error -- the cause is the DOMException kafkajs cannot wrap
      if (stopping.signal.aborted) throw new Error("record abandoned: the consumer is stopping");
      throw err;
    } finally {
      clearInterval(keepAlive);
    }
  };

  const settleRecord = async (record: EachMessagePayload, producer: Producer) => {
    const event = readInboundEvent(contract, record);
    const retry = { record, logger, signal: stopping.signal };
    if (event.kind === "event") {
      const { message, meta } = event;
      const due = opts.notBefore?.(message);
      if (due) await waitUntil(due, record, stopping.signal);
      await retrying(
        () => (meta.requestId ? withRequestId(meta.requestId, () => apply(message, meta)) : apply(message, meta)),
        retry,
      );
    } else if (event.kind === "poison") {
      const { partition, message } = record;
      logger.error(
        { reason: event.reason, partition, offset: message.offset },
        "unusable record; sending it to the dead-letter topic",
      );
      const headers = {
        ...message.headers,
        "dlq-reason": event.reason,
        "dlq-source": `${contract.topic}/${partition}/${message.offset}`,
        "dlq-group": groupId,
      };
      await retrying(
        () =>
          producer.send({
            topic: kafka.topicName(deadLetters),
            acks: -1,
            messages: [{ key: message.key, value: message.value, headers }],
          }),
        retry,
      );
    } else {
      logger.debug({ eventType: event.eventType }, "not a message type of this consumer; skipped");
    }
  };

  await ensureTopics(kafka, [contract.topic, deadLetters]);
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  const consumer = kafka.consumer({ groupId });
  await producer.connect();
  await consumer.connect();
  // A new group starts at the oldest record kept: nothing published before its first start is missed.
  await consumer.subscribe({ topic: kafka.topicName(contract.topic), fromBeginning: true });
  await consumer.run({ eachMessage: (record) => settle(record, producer) });

  return {
    async stop() {
      stopping.abort();
      await consumer.disconnect();
      await producer.disconnect();
    },
  };
}

/** How long a due-time wait sleeps between heartbeats. */
const DUE_WAIT_SLICE_MS = 1_000;

// Waits for a record's due time in slices, heartbeating, so the group keeps the partition meanwhile. Stopping
// abandons the record; its next owner waits for it again.
async function waitUntil(due: Date, record: EachMessagePayload, signal: AbortSignal): Promise<void> {
  for (let left = due.getTime() - Date.now(); left > 0; left = due.getTime() - Date.now()) {
    await delay(Math.min(left, DUE_WAIT_SLICE_MS), undefined, { signal });
    await record.heartbeat();
  }
}

// Retries in place with back-off, heartbeating so the group keeps the partition: an outage delays the
// partition instead of skipping a record. Stopping abandons the record; its next owner gets it again.
async function retrying(
  work: () => Promise<unknown>,
  { record, logger, signal }: { record: EachMessagePayload; logger: Logger; signal: AbortSignal },
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await work();
      return;
    } catch (err) {
      if (signal.aborted) throw err;
      const retryInMs = Math.min(30_000, 200 * 2 ** (attempt - 1));
      logger.error(
        { err, attempt, retryInMs, partition: record.partition, offset: record.message.offset },
        "could not process a record; retrying",
      );
      await delay(retryInMs, undefined, { signal }).catch(() => {
        throw err;
      });
      await record.heartbeat();
    }
  }
}
