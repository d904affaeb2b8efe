// A person's scan_count through a real identity: the scan-orchestrator's ScanStateChanged written onto its
// sca.domain.events with a real Kafka producer, a redelivered creation included; read back as the admin view.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { create, toBinary } from "@bufbuild/protobuf";
import { timestampNow } from "@bufbuild/protobuf/wkt";
import { column, rawQuery } from "@sca/db";
import { EVENT_ID, EVENT_TYPE, TOPICS, topicEnds, uuidv7 } from "@sca/kafka";
import { ScanStateChangedSchema } from "@sca/proto/sca/events/v1/scans_pb.ts";
import { startIdentity, type IdentityHarness } from "./support/identity-harness.ts";

let h: IdentityHarness;
let producer: ReturnType<IdentityHarness["kafka"]["producer"]>;

beforeAll(async () => {
  h = await startIdentity();
  producer = h.kafka.producer();
  await producer.connect();
}, 60_000);

afterAll(async () => {
  await producer?.disconnect();
  await h?.close();
});

/** Publishes a scan's state change as the orchestrator's relay does; answers the event id. */
async function news(
  scanId: string,
  status: string,
  previousStatus: string,
  requestedByUserId?: string,
  eventId = uuidv7(),
): Promise<string> {
  const message = create(ScanStateChangedSchema, {
    scanId,
    projectId: randomUUID(),
    teamId: randomUUID(),
    kind: "sbom",
    status,
    previousStatus,
    attempt: 1,
    occurredAt: timestampNow(),
    createdAt: timestampNow(),
    ...(requestedByUserId ? { requestedByUserId } : {}),
  });
  await producer.send({
    topic: h.kafka.topicName(TOPICS.domainEvents),
    acks: -1,
    messages: [
      {
        key: scanId,
        value: Buffer.from(toBinary(ScanStateChangedSchema, message)),
        headers: { [EVENT_ID]: eventId, [EVENT_TYPE]: ScanStateChangedSchema.typeName },
      },
    ],
  });
  return eventId;
}

const group = () => `${h.kafka.topicPrefix}identity.scan-count`;

/** The events of `eventIds` the group recorded as applied. */
async function recorded(eventIds: string[]): Promise<string[]> {
  const rows = await rawQuery(
    h.orm.em.fork(),
    "select event_id from processed_events where consumer_group = ? and event_id = any(?::uuid[]) order by event_id",
    [group(), `{${eventIds.join(",")}}`],
    { eventId: column.text },
  );
  return rows.map((row) => row.eventId);
}

/**
 * Until the group has consumed everything published (its committed offsets at the ends of the topic's partitions):
 * news that counts for nobody leaves no record to wait for.
 */
async function consumed(): Promise<void> {
  const admin = h.kafka.admin();
  await admin.connect();
  try {
    const topic = h.kafka.topicName(TOPICS.domainEvents);
    const deadline = Date.now() + 30_000;
    for (;;) {
      const ends = await topicEnds(admin, topic);
      const [committed] = await admin.fetchOffsets({ groupId: group(), topics: [topic] });
      const done = new Map((committed?.partitions ?? []).map((p) => [p.partition, p.offset]));
      if (ends.every((end) => end.offset === "0" || done.get(end.partition) === end.offset)) return;
      if (Date.now() > deadline) throw new Error("timed out waiting for the scan news to be consumed");
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    await admin.disconnect();
  }
}

describe("a person's scan_count", () => {
  it("counts each scan the person asked for once: creations only, redeliveries and other people's scans aside, passing by news that counts for nobody", async () => {
    const person = await h.user();
    const other = await h.user();
    const admin = await h.as(await h.user({ superAdmin: true }));
    const scanCount = async (userId: string) => (await h.admin.getUser({ userId }, admin)).user!.scanCount;
    expect(await scanCount(person)).toBe(0);

    const first = uuidv7();
    const created = await news(first, "queued", "", person);
    // The relay published the creation again (same event id).
    await news(first, "queued", "", person, created);
    const passedBy = [
      // Later moves of the same scan are not new scans.
      await news(first, "running", "queued", person),
      await news(first, "succeeded", "running", person),
      // An API key's or a webhook's scan names no person.
      await news(uuidv7(), "queued", ""),
    ];
    const counting = [
      created,
      // A scan created failed at once (an SBOM scan without upload) is a scan asked for.
      await news(uuidv7(), "failed", "", person),
      await news(uuidv7(), "queued", "", other),
    ];
    await consumed();
    expect(await recorded(counting)).toEqual([...counting].sort());
    // News that counts for nobody is passed by before any database work: no transaction, no record of its id.
    expect(await recorded(passedBy)).toEqual([]);
    expect(await scanCount(person)).toBe(2);
    expect(await scanCount(other)).toBe(1);
  });
});
