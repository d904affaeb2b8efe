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

const notificationOf = (event: ScanStateChanged) =>
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
  });

/**
 * Whether the news raises a notification (the group's `acts`): a scan's every other move (queued, running) is passed
 * by before any database work.
 */
export const raisesScanOutcome = (event: ScanStateChanged): boolean => notificationOf(event) !== null;

export const scanOutcomeHandler = (deps: RaiseDeps) =>
  teamNotificationHandler<ScanStateChanged>(deps, {
    content: notificationOf,
    roles: (content) => SCAN_OUTCOME_ROLES[content.kind] ?? [],
    named: (event) => (event.requestedByUserId ? [event.requestedByUserId] : []),
    needsTeam: false,
  });
