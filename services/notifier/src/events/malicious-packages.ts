// MaliciousComponentsFlagged (projects, on sca.domain.events) raises package.malicious for the project's team by
// role (team-notifications.ts): projects publishes each component becoming flagged once.
import { topicContract, TOPICS } from "@sca/kafka";
import {
  MaliciousComponentsFlaggedSchema,
  type MaliciousComponentsFlagged,
} from "@sca/proto/sca/events/v1/projects_pb.ts";
import { MALICIOUS_PACKAGE_ROLES, maliciousPackageNotification } from "../domain/malicious-packages.ts";
import type { RaiseDeps } from "./delivery-deps.ts";
import { teamNotificationHandler } from "./team-notifications.ts";

export const MALICIOUS_PACKAGES_GROUP = "notifier.malicious-packages";
export const maliciousFlagEvents = topicContract(TOPICS.domainEvents, MaliciousComponentsFlaggedSchema);

export const maliciousPackageHandler = (deps: RaiseDeps) =>
  teamNotificationHandler<MaliciousComponentsFlagged>(deps, {
    content: maliciousPackageNotification,
    roles: () => MALICIOUS_PACKAGE_ROLES,
    needsTeam: false,
  });
