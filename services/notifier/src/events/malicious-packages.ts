// MaliciousComponentsFlagged (projects, on sca.domain.events) raises package.malicious for the project's team by
// role, routed through the team's and its organization's rules, in the event's transaction (idempotent consumer):
// projects publishes each component becoming flagged once, and a redelivered event adds nothing.
import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { EntityManager } from "@mikro-orm/postgresql";
import { topicContract, TOPICS, type EventMeta } from "@sca/kafka";
import {
  MaliciousComponentsFlaggedSchema,
  type MaliciousComponentsFlagged,
} from "@sca/proto/sca/events/v1/projects_pb.ts";
import { MALICIOUS_PACKAGE_ROLES, maliciousPackageNotification } from "../domain/malicious-packages.ts";
import type { RaiseDeps } from "./delivery-deps.ts";
import { raiseNotification } from "./raise-notification.ts";

export const MALICIOUS_PACKAGES_GROUP = "notifier.malicious-packages";
export const maliciousFlagEvents = topicContract(TOPICS.domainEvents, MaliciousComponentsFlaggedSchema);

export function maliciousPackageHandler(deps: RaiseDeps) {
  return async (em: EntityManager, event: MaliciousComponentsFlagged, meta: EventMeta): Promise<void> => {
    const content = maliciousPackageNotification(event);
    if (!content) return;
    const people = await deps.recipients.of(event.teamId, MALICIOUS_PACKAGE_ROLES, []);
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
