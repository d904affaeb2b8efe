// FindingsChanged (projects' re-match after an advisory refresh, on sca.domain.events) raises findings.new for the
// project's team by role, in the event's transaction (idempotent consumer): one notification per (event, person).
// Projects emits FindingsChanged only from RecordRefreshMatches, never for a scan's first match (the scan's own
// scan.succeeded tells of that), so only refreshes raise findings.new.
import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { EntityManager } from "@mikro-orm/postgresql";
import { topicContract, TOPICS, type EventMeta } from "@sca/kafka";
import { FindingsChangedSchema, type FindingsChanged } from "@sca/proto/sca/events/v1/projects_pb.ts";
import { FINDINGS_NEW_ROLES, findingsNewNotification } from "../domain/finding-alerts.ts";
import type { RaiseDeps } from "./delivery-deps.ts";
import { raiseNotification } from "./raise-notification.ts";

export const FINDINGS_NEW_GROUP = "notifier.findings-new";
export const findingsChangedEvents = topicContract(TOPICS.domainEvents, FindingsChangedSchema);

export function findingsNewHandler(deps: RaiseDeps) {
  return async (em: EntityManager, event: FindingsChanged, meta: EventMeta): Promise<void> => {
    const content = findingsNewNotification(event);
    // An event from before projects named the team reaches nobody by default.
    if (!content || !event.teamId) return;
    const people = await deps.recipients.of(event.teamId, FINDINGS_NEW_ROLES, []);
    await raiseNotification(em, deps, {
      content,
      teamId: event.teamId,
      projectId: event.projectId || null,
      scanId: event.scanId || null,
      people,
      sourceEventId: meta.eventId,
      occurredAt: event.occurredAt ? timestampDate(event.occurredAt) : meta.timestamp,
    });
  };
}
