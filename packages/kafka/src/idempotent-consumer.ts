// A consumer group that applies each event once: the handler's writes and the record of the event id commit
// in one transaction, a redelivered id is skipped, and a record's offset is resolved only after that commit.
// Records that can never be applied go to the dead-letter topic instead of blocking their partition. It reads
// kafkajs's fetched batches (eachBatch): a `batched` group applies a batch's events in one transaction with one
// insert of their ids, the others one event per transaction (docs/kafka.md, "Batches").
import { setTimeout as delay } from "node:timers/promises";
import type { DescMessage, MessageShape } from "@bufbuild/protobuf";
import type { EntityManager, MikroORM } from "@mikro-orm/postgresql";
import { Partitioners, type EachBatchPayload, type KafkaMessage, type Producer } from "kafkajs";
import { withRequestId, type Logger } from "@sca/log";
import type { KafkaClient } from "./client.ts";
import { readInboundEvent, type EventMeta } from "./inbound-event.ts";
import { enqueuedThrough } from "./enqueue.ts";
import { recordProcessed } from "./processed-events-table.ts";
import { deadLetterTopic, ensureTopics, TOPICS, type TopicContract } from "./topics.ts";

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
  /**
   * The events this group changes anything for (a rule of the service's domain): any other is passed by before any
   * database work, with no transaction and no record of its id, as a handler that returns at once would be.
   */
  acts?: (message: MessageShape<Desc>) => boolean;
  /**
   * Applies the events of a fetched batch together, up to BATCH_EVENTS in one transaction: one insert records their
   * ids, and the handler is called for each new one in turn with the same `em`. A failure rolls them all back and
   * the batch is tried again. Only for short handlers with no effect outside the database; not with `notBefore`.
   */
  batched?: boolean;
}

/** The most events a batched group applies in one transaction (a replay from the topic's start comes in large batches). */
const BATCH_EVENTS = 100;

/**
 * How long a consumer of a news topic lingers after a batch before its next fetch. Every group pays a fetch and an
 * offset commit per batch, however few records it holds and whether or not it acts on them: news arriving one record
 * at a time cost each group that much per record. Lingering lets a busy topic's records gather into batches, while an
 * idle consumer still waits on the broker in one long poll (docs/kafka.md, "Batches").
 */
const LINGER_MS = 250;
/** The topics of news nobody waits on within a request: their consumers linger. Work (scan jobs, progress) does not. */
const NEWS_TOPICS: ReadonlySet<string> = new Set([TOPICS.domainEvents, TOPICS.auditEvents]);

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

  if (opts.batched && opts.notBefore) throw new Error("a consumer of a delay topic applies one record at a time");
  const eventsPerTransaction = opts.batched ? BATCH_EVENTS : 1;
  const lingers = NEWS_TOPICS.has(contract.topic);

  // The events not applied yet of `events`, one transaction for all of them.
  const apply = async (events: readonly Applicable<Desc>[]) => {
    const enqueued = await orm.em.fork().transactional(async (em) => {
      const fresh = await recordProcessed(
        em,
        groupId,
        events.map(({ meta }) => meta.eventId.toLowerCase()),
      );
      for (const { message, meta } of events) {
        // Once each, whichever is first: an event twice in one batch (a relay's resend) is applied once.
        if (!fresh.delete(meta.eventId.toLowerCase())) {
          logger.debug({ eventId: meta.eventId }, "event already applied; skipped");
          continue;
        }
        const handled = () => handle(em, message, meta, stopping.signal);
        await (meta.requestId ? withRequestId(meta.requestId, handled) : handled());
      }
      return enqueuedThrough(em);
    });
    if (enqueued) opts.afterEnqueued?.();
  };

  const settle = async (payload: EachBatchPayload, producer: Producer) => {
    // A long handler (a scan job) keeps its partition: the member heartbeats while the batch is in hand, so the
    // group does not think it dead after its session timeout and hand the records to another member meanwhile.
    const keepAlive = setInterval(() => void payload.heartbeat().catch(() => undefined), HEARTBEAT_EVERY_MS);
    try {
      await settleBatch(payload, producer);
    } catch (err) {
      // Stopping abandons the records in hand (their next owner gets them again). What aborted is often a
      // DOMException, which kafkajs cannot wrap (it crashes the consumer and stalls the stop), so it gets a plain
      // Error instead.
      // eslint-disable-next-line preserve-caught-error -- the cause is the DOMException kafkajs cannot wrap
      if (stopping.signal.aborted) throw new Error("records abandoned: the consumer is stopping");
      throw err;
    } finally {
      clearInterval(keepAlive);
    }
  };

  // The batch's records in order: events gathered up to eventsPerTransaction and applied together, a poison record
  // sent to the dead letters after what came before it is applied. An offset is resolved once everything up to it
  // is done, so a stop or a failed commit delivers the rest again.
  const settleBatch = async (payload: EachBatchPayload, producer: Producer) => {
    const { batch } = payload;
    const heartbeat = () => payload.heartbeat();
    const retry = (offset: string) => ({
      partition: batch.partition,
      offset,
      heartbeat,
      logger,
      signal: stopping.signal,
    });
    let gathered: Applicable<Desc>[] = [];
    let through: string | undefined;
    // Whether the batch is still ours to settle: the consumer runs and no seek (a rebalance) moved the partition.
    const current = () => payload.isRunning() && !payload.isStale();
    const applyGathered = async () => {
      if (gathered.length > 0) {
        const events = gathered;
        gathered = [];
        await retrying(() => apply(events), retry(events[0]!.meta.offset));
      }
      if (through !== undefined) payload.resolveOffset(through);
      through = undefined;
    };
    for (const message of batch.messages) {
      if (!current()) return;
      const event = readInboundEvent(contract, { partition: batch.partition, message });
      if (event.kind === "event") {
        if (opts.acts && !opts.acts(event.message)) {
          logger.debug({ eventId: event.meta.eventId }, "an event this group does not act on; passed by");
        } else {
          const due = opts.notBefore?.(event.message);
          if (due) await waitUntil(due, heartbeat, stopping.signal);
          gathered.push(event);
        }
      } else if (event.kind === "poison") {
        await applyGathered();
        if (!current()) return;
        await sendToDeadLetters(message, event.reason, producer, retry(message.offset));
      } else {
        logger.debug({ eventType: event.eventType }, "not a message type of this consumer; skipped");
      }
      through = message.offset;
      if (gathered.length >= eventsPerTransaction) await applyGathered();
    }
    if (current()) await applyGathered();
  };

  const sendToDeadLetters = async (message: KafkaMessage, reason: string, producer: Producer, retry: Retry) => {
    logger.error(
      { reason, partition: retry.partition, offset: message.offset },
      "unusable record; sending it to the dead-letter topic",
    );
    const headers = {
      ...message.headers,
      "dlq-reason": reason,
      "dlq-source": `${contract.topic}/${retry.partition}/${message.offset}`,
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
  };

  await ensureTopics(kafka, [contract.topic, deadLetters]);
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  const consumer = kafka.consumer({ groupId });
  await producer.connect();
  await consumer.connect();
  // A new group starts at the oldest record kept: nothing published before its first start is missed.
  await consumer.subscribe({ topic: kafka.topicName(contract.topic), fromBeginning: true });
  await consumer.run({
    eachBatchAutoResolve: false,
    eachBatch: async (payload) => {
      await settle(payload, producer);
      if (lingers) await delay(LINGER_MS, undefined, { signal: stopping.signal }).catch(() => undefined);
    },
  });

  return {
    async stop() {
      stopping.abort();
      await consumer.disconnect();
      await producer.disconnect();
    },
  };
}

interface Applicable<Desc extends DescMessage> {
  message: MessageShape<Desc>;
  meta: EventMeta;
}

/** What a retry needs: the record it is about (for the log), the partition's heartbeat, the consumer's stop. */
interface Retry {
  partition: number;
  offset: string;
  heartbeat: () => Promise<void>;
  logger: Logger;
  signal: AbortSignal;
}

/** How long a due-time wait sleeps between heartbeats. */
const DUE_WAIT_SLICE_MS = 1_000;

// Waits for a record's due time in slices, heartbeating, so the group keeps the partition meanwhile. Stopping
// abandons the record; its next owner waits for it again.
async function waitUntil(due: Date, heartbeat: () => Promise<void>, signal: AbortSignal): Promise<void> {
  for (let left = due.getTime() - Date.now(); left > 0; left = due.getTime() - Date.now()) {
    await delay(Math.min(left, DUE_WAIT_SLICE_MS), undefined, { signal });
    await heartbeat();
  }
}

// Retries in place with back-off, heartbeating so the group keeps the partition: an outage delays the
// partition instead of skipping a record. Stopping abandons the record; its next owner gets it again.
async function retrying(
  work: () => Promise<unknown>,
  { partition, offset, heartbeat, logger, signal }: Retry,
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await work();
      return;
    } catch (err) {
      if (signal.aborted) throw err;
      const retryInMs = Math.min(30_000, 200 * 2 ** (attempt - 1));
      logger.error({ err, attempt, retryInMs, partition, offset }, "could not process a record; retrying");
      await delay(retryInMs, undefined, { signal }).catch(() => {
        throw err;
      });
      await heartbeat();
    }
  }
}
