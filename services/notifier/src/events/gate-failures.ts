// GateFailed (policy, once per scan whose gate fails) raises gate.failed for the project's team by role
// (team-notifications.ts); GatePassed (late registry licenses made such a failure pass) raises gate.passed for the
// same people.
import { topicContract, TOPICS } from "@sca/kafka";
import {
  GateFailedSchema,
  GatePassedSchema,
  type GateFailed,
  type GatePassed,
} from "@sca/proto/sca/events/v1/gate_pb.ts";
import { GATE_FAILED_ROLES, gateFailedNotification, gatePassedNotification } from "../domain/gate-failures.ts";
import type { RaiseDeps } from "./delivery-deps.ts";
import { teamNotificationHandler } from "./team-notifications.ts";

export const GATE_FAILURES_GROUP = "notifier.gate-failures";
export const gateVerdictEvents = topicContract(TOPICS.domainEvents, GateFailedSchema, GatePassedSchema);

export const gateVerdictHandler = (deps: RaiseDeps) =>
  teamNotificationHandler<GateFailed | GatePassed>(deps, {
    content: (e) =>
      e.$typeName === "sca.events.v1.GatePassed" ? gatePassedNotification(e) : gateFailedNotification(e),
    roles: () => GATE_FAILED_ROLES,
    needsTeam: true,
  });
