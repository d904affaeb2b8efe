// The queue-backlog sweep against real Kafka (the scan queue's lag: scan jobs no scanner-runner group has taken),
// a real identity (the super_admins it alerts) and PostgreSQL: one alert per breach however many sweeps see it,
// and a new alert once the queue has drained and backs up again.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { ensureTopics, topicEnds, TOPICS } from "@sca/kafka";
import { NotificationService } from "@sca/proto/sca/notifier/v1/notifier_pb.ts";
import {
  closeTogether,
  callAs,
  eventually,
  fixturesOf,
  startService,
  uniqueName,
  type TestService,
} from "@sca/testkit";
import { service } from "../src/service.ts";
import { QueueBacklogBreach } from "../src/store/entities/queue-backlog-breach.ts";

let identity: TestService;
let notifier: TestService;

beforeAll(async () => {
  const KAFKA_TOPIC_PREFIX = `${uniqueName("notifier_backlog")}.`;
  identity = await startService("identity", { env: { KAFKA_TOPIC_PREFIX } });
  notifier = await startService(service, {
    env: {
      IDENTITY_RPC_URL: identity.url!,
      KAFKA_TOPIC_PREFIX,
      QUEUE_BACKLOG_METRICS_ENABLED: "true",
      QUEUE_BACKLOG_ALERT_ENABLED: "true",
      QUEUE_BACKLOG_ALERT_SCAN_QUEUE_THRESHOLD: "5",
      QUEUE_BACKLOG_ALERT_DEFAULT_QUEUE_THRESHOLD: "100000",
    },
    seams: { queueBacklogEveryMs: 300 },
  });
  // This file is the only one whose notifier sweeps: a breach left by an earlier run is not this run's.
  await notifier.orm.em.fork().nativeDelete(QueueBacklogBreach, {});
  await ensureTopics(notifier.kafka!, [TOPICS.scanJobsManual]);
}, 90_000);

afterAll(async () => {
  await closeTogether([notifier, identity]);
});

async function enqueueScanJobs(n: number): Promise<void> {
  // Idempotent: a retried send must not double a job the backlog counts.
  const producer = notifier.kafka!.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  await producer.send({
    topic: notifier.kafka!.topicName(TOPICS.scanJobsManual),
    acks: -1,
    messages: Array.from({ length: n }, (_, i) => ({ key: `job-${i}`, value: Buffer.from(`job ${i}`) })),
  });
  await producer.disconnect();
}

/** As the scanner-runner's manual lane would after taking every job: its group's offsets at the end. */
async function takeAllScanJobs(): Promise<void> {
  const kafka = notifier.kafka!;
  const admin = kafka.admin();
  await admin.connect();
  const topic = kafka.topicName(TOPICS.scanJobsManual);
  const ends = await topicEnds(admin, topic);
  await admin.setOffsets({
    groupId: `${kafka.topicPrefix}scanner-runner.manual`,
    topic,
    partitions: ends.map((p) => ({ partition: p.partition, offset: p.high })),
  });
  await admin.disconnect();
}

describe("the queue-backlog sweep", () => {
  it("alerts the super_admins once per breach of the scan queue, and again after it drained and backed up", async () => {
    const fixtures = await fixturesOf("identity");
    const admin = await fixtures.user(identity.orm, { superAdmin: true });
    const developer = await fixtures.user(identity.orm, {});
    const listOf = async (userId: string) =>
      notifier
        .client(NotificationService)
        .listNotifications({ page: { page: 1, pageSize: 50 } }, await callAs.user(userId));
    const backlogOf = async (userId: string) => (await listOf(userId)).items.filter((n) => n.kind === "queue.backlog");

    await enqueueScanJobs(8);
    const first = await eventually(
      () => backlogOf(admin),
      (items) => items.length > 0,
    );
    expect(first).toHaveLength(1);
    expect(first[0]).toMatchObject({ severity: "medium", link: "/admin/health" });
    expect(first[0]!.title).toMatch(/8 messages waiting in the scan queue/);
    // Many sweeps later, still the one alert: once per breach, not once per sweep (or day).
    await new Promise((r) => setTimeout(r, 1_500));
    expect(await backlogOf(admin)).toHaveLength(1);
    expect(await backlogOf(developer)).toHaveLength(0);

    // Drained: the breach ends. Backed up again: a new breach, a new alert.
    await takeAllScanJobs();
    await eventually(
      () => notifier.orm.em.fork().count(QueueBacklogBreach, { queue: "scan" }),
      (n) => n === 0,
    );
    expect(await notifier.orm.em.fork().count(QueueBacklogBreach, { queue: "scan" })).toBe(0);
    expect(await backlogOf(admin)).toHaveLength(1);
    await enqueueScanJobs(6);
    const second = await eventually(
      () => backlogOf(admin),
      (items) => items.length > 1,
    );
    expect(second).toHaveLength(2);
    expect(second[0]!.title).toMatch(/6 messages waiting in the scan queue/);
    expect(second[0]!.id).not.toBe(first[0]!.id);
  });
});
