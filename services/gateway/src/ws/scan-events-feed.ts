// Every scan's events, for this gateway instance's sockets: a consumer group of the instance's own on
// sca.scan.events (ScanProgress, ScanLogLine) and sca.domain.events (ScanStateChanged), so every instance sees
// every event, from the moment it starts.
import { randomUUID } from "node:crypto";
import { runBroadcastConsumer, topicContract, TOPICS, type BroadcastConsumer, type KafkaClient } from "@sca/kafka";
import type { Logger } from "@sca/log";
import { ScanLogLineSchema, ScanProgressSchema, ScanStateChangedSchema } from "@sca/proto/sca/events/v1/scans_pb.ts";
import type { ScanEvent } from "./scan-progress.ts";

const scanEvents = topicContract(TOPICS.scanEvents, ScanProgressSchema, ScanLogLineSchema, ScanStateChangedSchema);
const domainEvents = topicContract(TOPICS.domainEvents, ScanStateChangedSchema);

export function startScanEventsFeed(
  kafka: KafkaClient,
  logger: Logger,
  publish: (event: ScanEvent) => void,
): Promise<BroadcastConsumer> {
  return runBroadcastConsumer({
    kafka,
    groupId: `${kafka.topicPrefix}gateway-ws-${randomUUID()}`,
    topics: [scanEvents, domainEvents],
    logger,
    handle(message) {
      switch (message.$typeName) {
        case "sca.events.v1.ScanProgress":
          return publish({ kind: "progress", message });
        case "sca.events.v1.ScanLogLine":
          return publish({ kind: "log", message });
        case "sca.events.v1.ScanStateChanged":
          return publish({ kind: "state", message });
      }
    },
  });
}
