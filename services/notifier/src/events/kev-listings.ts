// VulnerabilitiesKevListed (projects, when an enrichment refresh newly lists vulnerabilities touching open findings)
// raises vulnerability.kev_listed for the project's team by role, in the event's transaction (idempotent consumer):
// projects publishes each listing once per project, and a redelivered event adds nothing.
import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { EntityManager } from "@mikro-orm/postgresql";
import { topicContract, TOPICS, type EventMeta } from "@sca/kafka";
import {
  VulnerabilitiesKevListedSchema,
  type VulnerabilitiesKevListed,
} from "@sca/proto/sca/events/v1/kev_listings_pb.ts";
import { KEV_LISTED_ROLES, kevListedNotification } from "../domain/finding-alerts.ts";
import type { RaiseDeps } from "./delivery-deps.ts";
import { raiseNotification } from "./raise-notification.ts";

export const KEV_LISTINGS_GROUP = "notifier.kev-listings";
export const kevListingEvents = topicContract(TOPICS.domainEvents, VulnerabilitiesKevListedSchema);

export function kevListedHandler(deps: RaiseDeps) {
  return async (em: EntityManager, event: VulnerabilitiesKevListed, meta: EventMeta): Promise<void> => {
    const content = kevListedNotification(event);
    if (!content || !event.teamId) return;
    const people = await deps.recipients.of(event.teamId, KEV_LISTED_ROLES, []);
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
