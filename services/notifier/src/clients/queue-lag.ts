// The queues' backlog as Kafka consumer lag (kafkajs admin: fetchTopicOffsets for the end of each partition,
// fetchOffsets for what a group committed), for the backlog sweep (docs/notifications.md, "Queue backlog"):
// - the scan queue: the scan-job topics (manual and automatic lanes) less what the scanner-runner groups committed,
//   summed: jobs nobody has taken yet;
// - the default queue: sca.domain.events less what each of its consumer groups committed, the largest of them: the
//   events the slowest consumer has still to apply.
// A group that never committed counts from the start of what the topic still holds.
import { TOPICS, type KafkaClient } from "@sca/kafka";

/** The scanner-runner's groups on the scan-job topics (services/scanner-runner: `scanner-runner.<lane>`). */
const SCAN_LANES: readonly { groupId: string; topic: string }[] = [
  { groupId: "scanner-runner.manual", topic: TOPICS.scanJobsManual },
  { groupId: "scanner-runner.automatic", topic: TOPICS.scanJobsAutomatic },
];

export interface QueueLag {
  scan: number;
  default: number;
}

export async function measureQueueLag(kafka: KafkaClient): Promise<QueueLag> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    // A topic not created yet holds nothing (asking for its offsets would only retry until it gives up).
    const existing = new Set(await admin.listTopics());
    /** Messages of the topic past what the group committed; null when it never committed and `onlyIfCommitted`. */
    const lagOf = async (groupId: string, logicalTopic: string, onlyIfCommitted: boolean): Promise<number | null> => {
      const topic = kafka.topicName(logicalTopic);
      if (!existing.has(topic)) return onlyIfCommitted ? null : 0;
      const ends = await admin.fetchTopicOffsets(topic);
      const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] });
      const done = new Map((committed?.partitions ?? []).map((p) => [p.partition, Number(p.offset)]));
      if (onlyIfCommitted && ![...done.values()].some((o) => o >= 0)) return null;
      return ends.reduce((sum, p) => {
        const at = done.get(p.partition) ?? -1;
        return sum + Math.max(0, Number(p.high) - (at >= 0 ? at : Number(p.low)));
      }, 0);
    };
    let scan = 0;
    for (const lane of SCAN_LANES) scan += (await lagOf(`${kafka.topicPrefix}${lane.groupId}`, lane.topic, false)) ?? 0;
    // The default queue's consumers: the deployment's groups (its prefix) that committed on the domain events.
    const { groups } = await admin.listGroups();
    let slowest = 0;
    for (const g of groups) {
      if (!g.groupId.startsWith(kafka.topicPrefix)) continue;
      const lag = await lagOf(g.groupId, TOPICS.domainEvents, true);
      if (lag !== null) slowest = Math.max(slowest, lag);
    }
    return { scan, default: slowest };
  } finally {
    await admin.disconnect();
  }
}
