// Kafka for a service whose definition asks for it: the client (topics under KAFKA_TOPIC_PREFIX), idempotent
// consumers on the service's own schema with the pruning of their processed_events and, with `outbox`, the relay
// publishing the service's outbox.
import type { DescMessage } from "@bufbuild/protobuf";
import type { MikroORM } from "@mikro-orm/postgresql";
import { keys, type ConfigOf } from "@sca/config";
import {
  createKafka,
  deadLetterTopic,
  ensureTopics,
  OutboxRelay,
  OutboxSweep,
  ProcessedEventsPruner,
  runIdempotentConsumer,
  type IdempotentConsumerOptions,
  type KafkaClient,
} from "@sca/kafka";
import type { Logger } from "@sca/log";
import type { Closer } from "./closers.ts";
import { startPeriodicJob } from "./periodic-job.ts";

export interface KafkaUse {
  /** Runs the outbox relay; the service lists CreateOutboxTable in its migrations. */
  outbox?: boolean;
  /** The logical topics the service publishes to; `migrate` creates them. */
  produces?: readonly string[];
  /** The logical topics the service consumes; `migrate` creates them and their dead-letter topics. */
  consumes?: readonly string[];
}

/** The keys runService loads for a service that asks for Kafka. */
export const kafkaKeys = {
  KAFKA_BROKERS: keys.KAFKA_BROKERS,
  KAFKA_TOPIC_PREFIX: keys.KAFKA_TOPIC_PREFIX,
  KAFKA_FETCH_MAX_WAIT_MS: keys.KAFKA_FETCH_MAX_WAIT_MS,
};

export type KafkaConfig = ConfigOf<typeof kafkaKeys>;

export interface ServiceKafka {
  client: KafkaClient;
  /**
   * Starts an idempotent consumer on the service's schema (which lists CreateProcessedEventsTable in its
   * migrations). It joins its group in the background, beside the service's other consumers; the service starts
   * serving once every consumer has joined. It stops at shutdown after the server has drained, before the relay
   * and the database. The first one also starts pruning processed_events.
   */
  consume<Desc extends DescMessage>(
    opts: Pick<IdempotentConsumerOptions<Desc>, "groupId" | "topic" | "handle" | "notBefore" | "acts" | "batched">,
  ): void;
  /** Publishes soon after a commit that enqueued events, rather than at the relay's next poll. */
  wakeRelay(): void;
}

interface Deps {
  config: KafkaConfig;
  orm: MikroORM;
  logger: Logger;
  addCloser: (name: string, close: () => Promise<unknown>) => void;
  /** How often the relay looks for rows nobody woke it for (tests shorten it). */
  relayPollIntervalMs?: number;
}

function serviceKafkaClient(clientId: string, config: KafkaConfig, logger: Logger): KafkaClient {
  return createKafka({
    brokers: config.KAFKA_BROKERS,
    clientId,
    logger,
    topicPrefix: config.KAFKA_TOPIC_PREFIX,
    fetchMaxWaitMs: config.KAFKA_FETCH_MAX_WAIT_MS,
  });
}

/**
 * Part of `migrate`: creates the topics the service declares (under the prefix, with the broker's defaults), so a
 * fresh cluster does not depend on the broker creating topics on first use.
 */
export async function ensureDeclaredTopics(
  clientId: string,
  use: KafkaUse,
  config: KafkaConfig,
  logger: Logger,
): Promise<void> {
  const consumes = use.consumes ?? [];
  const topics = [...(use.produces ?? []), ...consumes, ...consumes.map(deadLetterTopic)];
  if (topics.length === 0) return;
  await ensureTopics(serviceKafkaClient(clientId, config, logger), topics);
  logger.info({ topics, topicPrefix: config.KAFKA_TOPIC_PREFIX }, "topics exist");
}

/** Returns what handlers use, and the closers to run after the service's own (the relay publishes last). */
export function openServiceKafka(
  clientId: string,
  use: KafkaUse,
  { config, orm, logger, addCloser, relayPollIntervalMs }: Deps,
): { context: ServiceKafka; closers: Closer[]; joined: () => Promise<void> } {
  const client = serviceKafkaClient(clientId, config, logger);
  const relay = use.outbox
    ? new OutboxRelay({ kafka: client, orm, logger, pollIntervalMs: relayPollIntervalMs })
    : undefined;
  relay?.start();
  const sweep = use.outbox ? startPeriodicJob(new OutboxSweep({ orm }), logger) : undefined;
  let pruning = false;
  // Consumers join together and leave together: each join is a group round trip, and each stop may be half-way
  // through a fetch's long poll; in turn, a service's start and shutdown were the sum of those waits.
  const consumers: { groupId: string; stop(): Promise<void> }[] = [];
  const joining: Promise<void>[] = [];
  const context: ServiceKafka = {
    client,
    consume(opts) {
      // So that `migrate` created it: the declaration is the list it works from.
      if (!use.consumes?.includes(opts.topic.topic))
        throw new Error(`${opts.topic.topic} is not among the topics in kafka.consumes`);
      if (!pruning) {
        pruning = true;
        const pruner = new ProcessedEventsPruner({ orm, logger });
        const job = startPeriodicJob(pruner, logger);
        addCloser(pruner.name, () => job.stop());
        addCloser("consumers", () => stopTogether(consumers));
      }
      // The prefix that keeps deployments (and test runs) sharing a broker apart applies to their groups too: two
      // of them must never share a group's partitions.
      const join = runIdempotentConsumer({
        ...opts,
        groupId: `${client.topicPrefix}${opts.groupId}`,
        kafka: client,
        afterEnqueued: () => relay?.wake(),
        orm,
        logger,
      }).then((consumer) => void consumers.push({ groupId: opts.groupId, stop: () => consumer.stop() }));
      joining.push(join);
    },
    wakeRelay: () => relay?.wake(),
  };
  const closers: Closer[] = [];
  if (sweep) closers.push({ name: "outbox sweep", close: () => sweep.stop() });
  if (relay) closers.push({ name: "outbox relay", close: () => relay.stop() });
  // Every join settles before a failure is reported, so the consumers that did join are among those closed.
  const joined = async () => {
    const results = await Promise.allSettled(joining);
    const failed = results.flatMap((r) => (r.status === "rejected" ? [r.reason as unknown] : []));
    if (failed.length > 0) throw new AggregateError(failed, `${failed.length} consumers could not join their groups`);
  };
  return { context, closers, joined };
}

async function stopTogether(consumers: readonly { groupId: string; stop(): Promise<void> }[]): Promise<void> {
  const results = await Promise.allSettled(consumers.map((c) => c.stop()));
  const failed = results.flatMap((r, i) =>
    r.status === "rejected" ? [new Error(`consumer ${consumers[i]!.groupId}`, { cause: r.reason })] : [],
  );
  if (failed.length > 0) throw new AggregateError(failed, `${failed.length} consumers did not stop cleanly`);
}
