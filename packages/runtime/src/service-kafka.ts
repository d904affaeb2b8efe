// Kafka for a service whose definition asks for it: the client, idempotent consumers on the service's own
// schema and, with `outbox`, the relay publishing the service's outbox.
import type { DescMessage } from "@bufbuild/protobuf";
import type { MikroORM } from "@mikro-orm/postgresql";
import { keys, loadConfigOrExit } from "@sca/config";
import { createKafka, OutboxRelay, runIdempotentConsumer, type IdempotentConsumerOptions, type Kafka } from "@sca/kafka";
import type { Logger } from "@sca/log";

export interface KafkaUse {
  /** Runs the outbox relay; the service lists CreateOutboxTable in its migrations. */
  outbox?: boolean;
}

export interface ServiceKafka {
  client: Kafka;
  /**
   * Starts an idempotent consumer on the service's schema (which lists CreateProcessedEventsTable in its
   * migrations). It stops at shutdown after the server has drained, before the relay and the database.
   */
  consume<Desc extends DescMessage>(opts: Pick<IdempotentConsumerOptions<Desc>, "groupId" | "topic" | "handle">): Promise<void>;
  /** Publishes soon after a commit that enqueued events, rather than at the relay's next poll. */
  wakeRelay(): void;
}

type Closer = { name: string; close: () => Promise<unknown> };

interface Deps {
  orm: MikroORM;
  logger: Logger;
  addCloser: (name: string, close: () => Promise<unknown>) => void;
}

/** Returns what handlers use, and the closers to run after the service's own (the relay publishes last). */
export function openServiceKafka(clientId: string, use: KafkaUse, { orm, logger, addCloser }: Deps): { context: ServiceKafka; closers: Closer[] } {
  const { KAFKA_BROKERS } = loadConfigOrExit({ KAFKA_BROKERS: keys.KAFKA_BROKERS });
  const client = createKafka({ brokers: KAFKA_BROKERS, clientId, logger });
  const relay = use.outbox ? new OutboxRelay({ kafka: client, orm, logger }) : undefined;
  relay?.start();
  const context: ServiceKafka = {
    client,
    async consume(opts) {
      const consumer = await runIdempotentConsumer({ ...opts, kafka: client, orm, logger });
      addCloser(`consumer ${opts.groupId}`, () => consumer.stop());
    },
    wakeRelay: () => relay?.wake(),
  };
  return { context, closers: relay ? [{ name: "outbox relay", close: () => relay.stop() }] : [] };
}
