// VulnerabilitiesKevListed (projects, when an enrichment refresh newly lists vulnerabilities touching open findings)
// raises vulnerability.kev_listed for the project's team by role (team-notifications.ts): projects publishes each
// listing once per project.
import { topicContract, TOPICS } from "@sca/kafka";
import {
  VulnerabilitiesKevListedSchema,
  type VulnerabilitiesKevListed,
} from "@sca/proto/sca/events/v1/kev_listings_pb.ts";
import { KEV_LISTED_ROLES, kevListedNotification } from "../domain/finding-alerts.ts";
import type { RaiseDeps } from "./delivery-deps.ts";
import { teamNotificationHandler } from "./team-notifications.ts";

export const KEV_LISTINGS_GROUP = "notifier.kev-listings";
export const kevListingEvents = topicContract(TOPICS.domainEvents, VulnerabilitiesKevListedSchema);

export const kevListedHandler = (deps: RaiseDeps) =>
  teamNotificationHandler<VulnerabilitiesKevListed>(deps, {
    content: kevListedNotification,
    roles: () => KEV_LISTED_ROLES,
    needsTeam: true,
  });
