// ScanStateChanged (the scan-orchestrator's, on sca.domain.events) raises scan.failed and scan.succeeded for the
// project's team by role and the person who asked for the scan (team-notifications.ts). Recipients and the team's
// organization come from identity; while it is unreachable the consumer retries the event.
import { topicContract, TOPICS } from "@sca/kafka";
import { ScanStateChangedSchema, type ScanStateChanged } from "@sca/proto/sca/events/v1/scans_pb.ts";
import { SCAN_OUTCOME_ROLES, scanOutcomeNotification } from "../domain/scan-outcomes.ts";
import type { RaiseDeps } from "./delivery-deps.ts";
import { teamNotificationHandler } from "./team-notifications.ts";

export const SCAN_OUTCOMES_GROUP = "notifier.scan-outcomes";
export const scanStateEvents = topicContract(TOPICS.domainEvents, ScanStateChangedSchema);

export const scanOutcomeHandler = (deps: RaiseDeps) =>
  teamNotificationHandler<ScanStateChanged>(deps, {
    content: (event) =>
      scanOutcomeNotification({
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
      }),
    roles: (content) => SCAN_OUTCOME_ROLES[content.kind] ?? [],
    named: (event) => (event.requestedByUserId ? [event.requestedByUserId] : []),
    needsTeam: false,
  });
