// The queues' backlog as Kafka consumer lag (topicEnds for the end of each partition,
// fetchOffsets for what a group committed), for the notifier's backlog sweep (docs/notifications.md, "Queue backlog")
// and the gateway's /metrics gauges (docs/operations.md, "Queue backlog on /metrics"):
// - the scan queue: the scan-job topics (manual and automatic lanes) less what the scanner-runner groups committed,
//   summed: jobs nobody has taken yet;
// - the default queue: sca.domain.events less what each of its consumer groups committed, the largest of them: the
//   events the slowest consumer has still to apply.
// A group that never committed counts from the start of what the topic still holds.
import type { KafkaClient } from "./client.ts";
import { TOPICS, topicEnds } from "./topics.ts";

export const SCAN_LANES = ["manual", "automatic"] as const;
export type ScanLane = (typeof SCAN_LANES)[number];

/** The scanner-runner's group on each lane's scan-job topic (services/scanner-runner: `scanner-runner.<lane>`). */
const LANE_TOPICS: Record<ScanLane, string> = { manual: TOPICS.scanJobsManual, automatic: TOPICS.scanJobsAutomatic };

export interface QueueLag {
  /** Scan jobs not yet taken, both lanes together. */
  scan: number;
  /** Scan jobs not yet taken, per lane. */
  lanes: Record<ScanLane, number>;
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
      const ends = await topicEnds(admin, topic);
      const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] });
      const done = new Map((committed?.partitions ?? []).map((p) => [p.partition, Number(p.offset)]));
      if (onlyIfCommitted && ![...done.values()].some((o) => o >= 0)) return null;
      return ends.reduce((sum, p) => {
        const at = done.get(p.partition) ?? -1;
        return sum + Math.max(0, Number(p.high) - (at >= 0 ? at : Number(p.low)));
      }, 0);
    };
    const lanes = { manual: 0, automatic: 0 };
    for (const lane of SCAN_LANES)
      lanes[lane] = (await lagOf(`${kafka.topicPrefix}scanner-runner.${lane}`, LANE_TOPICS[lane], false)) ?? 0;
    // The default queue's consumers: the deployment's groups (its prefix) that committed on the domain events.
    const { groups } = await admin.listGroups();
    let slowest = 0;
    for (const g of groups) {
      if (!g.groupId.startsWith(kafka.topicPrefix)) continue;
      const lag = await lagOf(g.groupId, TOPICS.domainEvents, true);
      if (lag !== null) slowest = Math.max(slowest, lag);
    }
    return { scan: lanes.manual + lanes.automatic, lanes, default: slowest };
  } finally {
    await admin.disconnect();
  }
}
