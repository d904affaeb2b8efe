// A scan reported succeeded on sca.domain.events as the scan-orchestrator's relay reports it (keyed by the scan,
// with the event id and type headers), for the tests and benches of the consumers of that news.
import { create, toBinary } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { EVENT_ID, EVENT_TYPE, TOPICS, uuidv7 } from "@sca/kafka";
import { ScanStateChangedSchema } from "@sca/proto/sca/events/v1/scans_pb.ts";
import type { TestService } from "./start-service.ts";

export type TestProducer = ReturnType<NonNullable<TestService["kafka"]>["producer"]>;

/**
 * Publishes the ScanStateChanged of an `sbom` scan (`succeeded` unless `status` says otherwise, created `createdAt`,
 * now by default) to `service`'s domain events topic.
 */
export async function publishScanState(
  service: TestService,
  producer: TestProducer,
  scan: { scanId: string; projectId: string; teamId: string; status?: string; createdAt?: Date },
): Promise<void> {
  const { status = "succeeded", createdAt = new Date(), ...ids } = scan;
  const now = timestampFromDate(new Date());
  const event = create(ScanStateChangedSchema, {
    ...ids,
    kind: "sbom",
    status,
    previousStatus: status === "running" ? "queued" : "running",
    attempt: 1,
    createdAt: timestampFromDate(createdAt),
    occurredAt: now,
    ...(status === "succeeded" ? { completedAt: now } : {}),
  });
  await producer.send({
    topic: service.kafka!.topicName(TOPICS.domainEvents),
    acks: -1,
    messages: [
      {
        key: scan.scanId,
        value: Buffer.from(toBinary(ScanStateChangedSchema, event)),
        headers: { [EVENT_ID]: uuidv7(), [EVENT_TYPE]: ScanStateChangedSchema.typeName },
      },
    ],
  });
}
