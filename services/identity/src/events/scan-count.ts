// Identity's consumer of the scan-orchestrator's ScanStateChanged (group identity.scan-count): a person's scan_count
// is the number of scans they asked for. A scan's creation is the one news with an empty previous_status, published
// once per scan through the orchestrator's outbox; the idempotent consumer applies each event id once, so a
// redelivered creation never counts twice. Scans without a requesting person (API keys, webhooks, schedules) count
// for nobody.
import type { EntityManager } from "@mikro-orm/postgresql";
import { topicContract, TOPICS } from "@sca/kafka";
import { ScanStateChangedSchema, type ScanStateChanged } from "@sca/proto/sca/events/v1/scans_pb.ts";
import { countScanOf } from "../store/accounts.ts";
import { UUID } from "@sca/ids";

export const SCAN_COUNT_GROUP = "identity.scan-count";

export const scanStateNews = topicContract(TOPICS.domainEvents, ScanStateChangedSchema);

export async function countRequestedScan(em: EntityManager, event: ScanStateChanged): Promise<void> {
  const userId = event.requestedByUserId;
  if (event.previousStatus !== "" || !userId || !UUID.test(userId)) return;
  await countScanOf(em, userId.toLowerCase());
}
