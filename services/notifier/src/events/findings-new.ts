// FindingsChanged (projects' re-match after an advisory refresh, on sca.domain.events) raises findings.new for the
// project's team by role (team-notifications.ts): one notification per (event, person). Projects emits
// FindingsChanged only from RecordRefreshMatches, never for a scan's first match (the scan's own scan.succeeded tells
// of that), so only refreshes raise findings.new.
import { topicContract, TOPICS } from "@sca/kafka";
import { FindingsChangedSchema, type FindingsChanged } from "@sca/proto/sca/events/v1/projects_pb.ts";
import { FINDINGS_NEW_ROLES, findingsNewNotification } from "../domain/finding-alerts.ts";
import type { RaiseDeps } from "./delivery-deps.ts";
import { teamNotificationHandler } from "./team-notifications.ts";

export const FINDINGS_NEW_GROUP = "notifier.findings-new";
export const findingsChangedEvents = topicContract(TOPICS.domainEvents, FindingsChangedSchema);

export const findingsNewHandler = (deps: RaiseDeps) =>
  teamNotificationHandler<FindingsChanged>(deps, {
    content: findingsNewNotification,
    roles: () => FINDINGS_NEW_ROLES,
    // An event from before projects named the team reaches nobody by default.
    needsTeam: true,
  });
