// A person's scan_count through a real identity: the scan-orchestrator's ScanStateChanged written onto its
// sca.domain.events with a real Kafka producer, a redelivered creation included; read back as the admin view.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { create, toBinary } from "@bufbuild/protobuf";
import { timestampNow } from "@bufbuild/protobuf/wkt";
import { column, rawQuery } from "@sca/db";
import { EVENT_ID, EVENT_TYPE, TOPICS, uuidv7 } from "@sca/kafka";
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

async function applied(eventIds: string[]): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const [{ n } = { n: 0 }] = await rawQuery(
      h.orm.em.fork(),
      "select count(*) as n from processed_events where consumer_group = ? and event_id = any(?::uuid[])",
      [`${h.kafka.topicPrefix}identity.scan-count`, `{${eventIds.join(",")}}`],
      { n: column.integer },
    );
    if (n === eventIds.length) return;
    if (Date.now() > deadline) throw new Error("timed out waiting for the scan news to be applied");
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("a person's scan_count", () => {
  it("counts each scan the person asked for once: creations only, redeliveries and other people's scans aside", async () => {
    const person = await h.user();
    const other = await h.user();
    const admin = await h.as(await h.user({ superAdmin: true }));
    const scanCount = async (userId: string) => (await h.admin.getUser({ userId }, admin)).user!.scanCount;
    expect(await scanCount(person)).toBe(0);

    const first = uuidv7();
    const created = await news(first, "queued", "", person);
    const ids = [
      created,
      // The relay published the creation again (same event id).
      await news(first, "queued", "", person, created),
      // Later moves of the same scan are not new scans.
      await news(first, "running", "queued", person),
      await news(first, "succeeded", "running", person),
      // A scan created failed at once (an SBOM scan without upload) is a scan asked for.
      await news(uuidv7(), "failed", "", person),
      await news(uuidv7(), "queued", "", other),
      // An API key's or a webhook's scan names no person.
      await news(uuidv7(), "queued", ""),
    ];
    await applied([...new Set(ids)]);
    expect(await scanCount(person)).toBe(2);
    expect(await scanCount(other)).toBe(1);
  });
});
