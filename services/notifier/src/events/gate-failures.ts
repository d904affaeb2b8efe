// GateFailed (policy, once per scan whose gate fails) raises gate.failed for the project's team by role
// (team-notifications.ts).
import { topicContract, TOPICS } from "@sca/kafka";
import { GateFailedSchema, type GateFailed } from "@sca/proto/sca/events/v1/gate_pb.ts";
import { GATE_FAILED_ROLES, gateFailedNotification } from "../domain/gate-failures.ts";
import type { RaiseDeps } from "./delivery-deps.ts";
import { teamNotificationHandler } from "./team-notifications.ts";

export const GATE_FAILURES_GROUP = "notifier.gate-failures";
export const gateFailedEvents = topicContract(TOPICS.domainEvents, GateFailedSchema);

export const gateFailedHandler = (deps: RaiseDeps) =>
  teamNotificationHandler<GateFailed>(deps, {
    content: gateFailedNotification,
    roles: () => GATE_FAILED_ROLES,
    needsTeam: true,
  });
