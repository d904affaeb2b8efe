// A real identity and a real notifier on one topic prefix, the notifier's log kept line by line (to show what it
// said, and that no secret is in it), and a producer publishing ScanStateChanged as the scan-orchestrator does.
import { Writable } from "node:stream";
import { create, toBinary, type MessageInitShape } from "@bufbuild/protobuf";
import { EVENT_ID, EVENT_TYPE, TOPICS } from "@sca/kafka";
import { createLogger } from "@sca/log";
import { ScanStateChangedSchema } from "@sca/proto/sca/events/v1/scans_pb.ts";
import { closeTogether, startService, uniqueName, type TestService } from "@sca/testkit";
import { service } from "../../src/service.ts";

export interface NotifierWithIdentity {
  identity: TestService;
  notifier: TestService;
  /** What the notifier has logged (DEBUG and up), a line an entry. */
  logLines: string[];
  publishScanState(eventId: string, fields: MessageInitShape<typeof ScanStateChangedSchema>): Promise<void>;
  close(): Promise<void>;
}

/** `name` tells the topic prefix apart; `env` and `seams`, the notifier's keys and replaced seams besides these. */
export async function startNotifierWithIdentity(
  name: string,
  opts: { env?: Record<string, string>; seams?: Record<string, unknown> } = {},
): Promise<NotifierWithIdentity> {
  const KAFKA_TOPIC_PREFIX = `${uniqueName(`notifier_${name}`)}.`;
  const logLines: string[] = [];
  const identity = await startService("identity", { env: { KAFKA_TOPIC_PREFIX } });
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logLines.push(...chunk.toString("utf8").split("\n").filter(Boolean));
      done();
    },
  });
  const notifier = await startService(service, {
    env: { IDENTITY_RPC_URL: identity.url!, KAFKA_TOPIC_PREFIX, ...opts.env },
    seams: opts.seams ?? {},
    logger: createLogger("notifier", "DEBUG", sink),
  });
  const producer = notifier.kafka!.producer();
  await producer.connect();
  return {
    identity,
    notifier,
    logLines,
    async publishScanState(eventId, fields) {
      const message = create(ScanStateChangedSchema, { eventId, ...fields });
      await producer.send({
        topic: notifier.kafka!.topicName(TOPICS.domainEvents),
        acks: -1,
        messages: [
          {
            key: message.scanId,
            value: Buffer.from(toBinary(ScanStateChangedSchema, message)),
            headers: { [EVENT_ID]: eventId, [EVENT_TYPE]: ScanStateChangedSchema.typeName },
          },
        ],
      });
    },
    async close() {
      await producer.disconnect();
      await closeTogether([notifier, identity]);
    },
  };
}
