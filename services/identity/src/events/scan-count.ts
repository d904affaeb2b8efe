// Identity's consumer of the scan-orchestrator's ScanStateChanged (group identity.scan-count): a person's scan_count
// is the number of scans they asked for (domain/scan-count.ts says whose news counts). The idempotent consumer
// applies each event id once, so a redelivered creation never counts twice; news that counts for nobody (every later
// move of a scan, a webhook's or an API key's scan) is passed by before any database work (`acts`).
import type { EntityManager } from "@mikro-orm/postgresql";
import { topicContract, TOPICS } from "@sca/kafka";
import { ScanStateChangedSchema, type ScanStateChanged } from "@sca/proto/sca/events/v1/scans_pb.ts";
import { countedRequester } from "../domain/scan-count.ts";
import { countScanOf } from "../store/accounts.ts";

export const SCAN_COUNT_GROUP = "identity.scan-count";

export const scanStateNews = topicContract(TOPICS.domainEvents, ScanStateChangedSchema);

/** Whether the news raises anyone's count: the group's `acts`. */
export const countsForSomeone = (event: ScanStateChanged): boolean => countedRequester(event) !== null;

export async function countRequestedScan(em: EntityManager, event: ScanStateChanged): Promise<void> {
  const userId = countedRequester(event);
  if (userId) await countScanOf(em, userId);
}
