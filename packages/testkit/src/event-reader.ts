// Reads a topic from the beginning with a group of its own and keeps every record, so a test can wait for
// the events its own actions caused (filtering by key: the user ids are new in every test run). It reads through
// the client it is given (a started service's), so under that service's topic prefix.
import type { DescMessage, MessageShape } from "@bufbuild/protobuf";
import { fromBinary } from "@bufbuild/protobuf";
import { EVENT_ID, EVENT_TYPE, type KafkaClient } from "@sca/kafka";
import { uniqueName } from "./names.ts";

export interface RecordSeen {
  key: string;
  type: string;
  /** The event-id header: a test re-sending the record stands for Kafka delivering it again. */
  eventId: string;
  value: Buffer;
}

export class EventReader {
  readonly seen: RecordSeen[] = [];
  private stopConsumer: () => Promise<void> = () => Promise.resolve();

  /** Reads the logical `topic` as `kafka` names it on the broker. */
  static async start(kafka: KafkaClient, topic: string): Promise<EventReader> {
    const reader = new EventReader();
    const consumer = kafka.consumer({ groupId: uniqueName("reader") });
    await consumer.connect();
    await consumer.subscribe({ topic: kafka.topicName(topic), fromBeginning: true });
    await consumer.run({
      eachMessage: ({ message }) => {
        reader.seen.push({
          key: message.key?.toString() ?? "",
          type: message.headers?.[EVENT_TYPE]?.toString() ?? "",
          eventId: message.headers?.[EVENT_ID]?.toString() ?? "",
          value: message.value ?? Buffer.alloc(0),
        });
        return Promise.resolve();
      },
    });
    reader.stopConsumer = () => consumer.disconnect();
    return reader;
  }

  /**
   * Every decoded message of `schema` for which `match` holds, once at least `count` of them arrived. The default
   * wait is generous: on a loaded two-core machine a first scan (its runner importing advisories at start) took 20 s.
   */
  async waitFor<D extends DescMessage>(
    schema: D,
    match: (m: MessageShape<D>) => boolean,
    count = 1,
    timeoutMs = 45_000,
  ): Promise<MessageShape<D>[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.seen
        .filter((r) => r.type === schema.typeName)
        .map((r) => fromBinary(schema, r.value))
        .filter(match);
      if (found.length >= count) return found;
      if (Date.now() > deadline) throw new Error(`only ${found.length} of ${count} ${schema.typeName} events arrived`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  stop(): Promise<void> {
    return this.stopConsumer();
  }
}
