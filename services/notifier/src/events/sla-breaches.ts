// VulnerabilitySlaBreached (projects' daily SLA sweep, on sca.domain.events) raises vulnerability.sla_breached for
// the project's team by role (team-notifications.ts): projects publishes each breach once.
import { topicContract, TOPICS } from "@sca/kafka";
import { VulnerabilitySlaBreachedSchema, type VulnerabilitySlaBreached } from "@sca/proto/sca/events/v1/projects_pb.ts";
import { SLA_BREACH_ROLES, slaBreachNotification } from "../domain/sla-breaches.ts";
import type { RaiseDeps } from "./delivery-deps.ts";
import { teamNotificationHandler } from "./team-notifications.ts";

export const SLA_BREACHES_GROUP = "notifier.sla-breaches";
export const slaBreachEvents = topicContract(TOPICS.domainEvents, VulnerabilitySlaBreachedSchema);

export const slaBreachHandler = (deps: RaiseDeps) =>
  teamNotificationHandler<VulnerabilitySlaBreached>(deps, {
    content: slaBreachNotification,
    roles: () => SLA_BREACH_ROLES,
    needsTeam: false,
  });
