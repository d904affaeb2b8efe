// VulnerabilitySlaBreached (projects' daily SLA sweep, on sca.domain.events) raises vulnerability.sla_breached for
// the project's team by role, routed through the team's and its organization's rules, in the event's transaction
// (idempotent consumer): projects publishes each breach once, and a redelivered event adds nothing.
import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { EntityManager } from "@mikro-orm/postgresql";
import { topicContract, TOPICS, type EventMeta } from "@sca/kafka";
import { VulnerabilitySlaBreachedSchema, type VulnerabilitySlaBreached } from "@sca/proto/sca/events/v1/projects_pb.ts";
import { SLA_BREACH_ROLES, slaBreachNotification } from "../domain/sla-breaches.ts";
import type { RaiseDeps } from "./delivery-deps.ts";
import { raiseNotification } from "./raise-notification.ts";

export const SLA_BREACHES_GROUP = "notifier.sla-breaches";
export const slaBreachEvents = topicContract(TOPICS.domainEvents, VulnerabilitySlaBreachedSchema);

export function slaBreachHandler(deps: RaiseDeps) {
  return async (em: EntityManager, event: VulnerabilitySlaBreached, meta: EventMeta): Promise<void> => {
    const content = slaBreachNotification(event);
    if (!content) return;
    const people = await deps.recipients.of(event.teamId, SLA_BREACH_ROLES, []);
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
