// Topic contracts: a topic name paired with the protobuf messages it carries. A topic may carry several
// message types (sca.domain.events does); the event-type header says which one a record is.
import type { DescMessage } from "@bufbuild/protobuf";
import type { Admin } from "kafkajs";
import { AuditEventSchema } from "@sca/proto/sca/events/v1/audit_pb.ts";
import type { KafkaClient } from "./client.ts";

export interface TopicContract<Desc extends DescMessage = DescMessage> {
  readonly topic: string;
  readonly messages: readonly Desc[];
}

export function topicContract<const Descs extends readonly DescMessage[]>(
  topic: string,
  ...messages: Descs
): TopicContract<Descs[number]> {
  return { topic, messages };
}

/** The schema of a message type the contract carries, or undefined for a type it does not know. */
export function messageSchema<Desc extends DescMessage>(
  contract: TopicContract<Desc>,
  typeName: string,
): Desc | undefined {
  return contract.messages.find((m) => m.typeName === typeName);
}

/**
 * The topics of ARCHITECTURE.md. Scan jobs run in two lanes, so automatic scans never starve the ones people asked
 * for, and wait out their retry back-off in one topic per back-off tier, so each retry topic holds records due in
 * the order they arrive (docs/scans.md).
 */
export const TOPICS = {
  scanJobsManual: "sca.scan.jobs.manual",
  scanJobsAutomatic: "sca.scan.jobs.automatic",
  scanJobsRetry1: "sca.scan.jobs.retry.1",
  scanJobsRetry2: "sca.scan.jobs.retry.2",
  scanJobsRetry3: "sca.scan.jobs.retry.3",
  scanEvents: "sca.scan.events",
  domainEvents: "sca.domain.events",
  auditEvents: "sca.audit.events",
} as const;

export const auditEventsTopic = topicContract(TOPICS.auditEvents, AuditEventSchema);

/** Where a consumer puts the records of `topic` it cannot decode (a logical name, as `topic` is). */
export function deadLetterTopic(topic: string): string {
  return `${topic}.dlq`;
}

/**
 * Creates the topics (logical names, created under the client's prefix) that do not exist yet, with the broker's
 * default partitions and replication, and `configEntries` (topic-level settings such as max.message.bytes) if given.
 */
export async function ensureTopics(
  kafka: KafkaClient,
  topics: readonly string[],
  configEntries: readonly { name: string; value: string }[] = [],
): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const missing = [...new Set(topics.map((t) => kafka.topicName(t)))].filter((t) => !existing.has(t));
    if (missing.length === 0) return;
    // Another process may create the same topic meanwhile; kafkajs treats "already exists" as done. kafkajs's own
    // waitForLeaders gives up when a young broker does not know a topic it just created yet, so we wait ourselves.
    await admin.createTopics({
      topics: missing.map((topic) => ({ topic, configEntries: [...configEntries] })),
      waitForLeaders: false,
    });
    await waitForLeaders(admin, missing);
  } finally {
    await admin.disconnect();
  }
}

const LEADER_WAIT_MS = 30_000;

// By shape: kafkajs is CommonJS and Node's ESM loader does not see its error classes as named exports.
function isRetriableProtocolError(err: unknown): boolean {
  const e = err as { name?: unknown; retriable?: unknown } | null;
  return e?.name === "KafkaJSProtocolError" && e.retriable === true;
}

/** Until every partition of `topics` has a leader; a broker answering "unknown topic" for now is asked again. */
async function waitForLeaders(admin: Admin, topics: string[]): Promise<void> {
  const deadline = Date.now() + LEADER_WAIT_MS;
  for (;;) {
    try {
      const { topics: found } = await admin.fetchTopicMetadata({ topics });
      if (
        found.length === topics.length &&
        found.every((t) => t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0))
      )
        return;
    } catch (err) {
      if (!isRetriableProtocolError(err)) throw err;
    }
    if (Date.now() > deadline)
      throw new Error(`topics without a leader after ${LEADER_WAIT_MS} ms: ${topics.join(", ")}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Where each partition of `topic` (a broker name) ends now. A partition whose leadership is still settling (a young
 * topic, a busy controller) answers "not the leader" for a moment, and kafkajs's admin passes that on: asked again
 * until LEADER_WAIT_MS has gone.
 */
export async function topicEnds(admin: Admin, topic: string): ReturnType<Admin["fetchTopicOffsets"]> {
  const deadline = Date.now() + LEADER_WAIT_MS;
  for (;;) {
    try {
      return await admin.fetchTopicOffsets(topic);
    } catch (err) {
      if (!isRetriableProtocolError(err) || Date.now() > deadline) throw err;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
