// ScanStateChanged (the scan-orchestrator's, on sca.domain.events) raises scan.failed and scan.succeeded for the
// project's team by role and the person who asked for the scan, routed through the team's and its organization's
// rules (raise-notification.ts), in the event's transaction (idempotent consumer). Recipients and the team's
// organization come from identity; while it is unreachable the consumer retries the event.
import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { EntityManager } from "@mikro-orm/postgresql";
import { topicContract, TOPICS, type EventMeta } from "@sca/kafka";
import { ScanStateChangedSchema, type ScanStateChanged } from "@sca/proto/sca/events/v1/scans_pb.ts";
import { SCAN_OUTCOME_ROLES, scanOutcomeNotification } from "../domain/scan-outcomes.ts";
import type { RaiseDeps } from "./delivery-deps.ts";
import { raiseNotification } from "./raise-notification.ts";

export const SCAN_OUTCOMES_GROUP = "notifier.scan-outcomes";
export const scanStateEvents = topicContract(TOPICS.domainEvents, ScanStateChangedSchema);

export function scanOutcomeHandler(deps: RaiseDeps) {
  return async (em: EntityManager, event: ScanStateChanged, meta: EventMeta): Promise<void> => {
    const content = scanOutcomeNotification({
      scanId: event.scanId,
      projectId: event.projectId,
      teamId: event.teamId,
      kind: event.kind,
      status: event.status,
      previousStatus: event.previousStatus,
      ref: event.ref,
      release: event.release ?? null,
      requestedByUserId: event.requestedByUserId ?? null,
      errorMessage: event.errorMessage ?? null,
      attempt: event.attempt,
    });
    if (!content) return;
    const people = await deps.recipients.of(
      event.teamId,
      SCAN_OUTCOME_ROLES[content.kind] ?? [],
      event.requestedByUserId ? [event.requestedByUserId] : [],
    );
    await raiseNotification(em, deps, {
      content,
      teamId: event.teamId || null,
      projectId: event.projectId || null,
      scanId: event.scanId || null,
      people,
      sourceEventId: meta.eventId,
      occurredAt: event.occurredAt ? timestampDate(event.occurredAt) : meta.timestamp,
    });
  };
}
