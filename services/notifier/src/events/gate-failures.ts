// GateFailed (policy, once per scan whose gate fails) raises gate.failed for the project's team by role, in the
// event's transaction (idempotent consumer): a redelivered event adds nothing.
import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { EntityManager } from "@mikro-orm/postgresql";
import { topicContract, TOPICS, type EventMeta } from "@sca/kafka";
import { GateFailedSchema, type GateFailed } from "@sca/proto/sca/events/v1/gate_pb.ts";
import { GATE_FAILED_ROLES, gateFailedNotification } from "../domain/gate-failures.ts";
import type { RaiseDeps } from "./delivery-deps.ts";
import { raiseNotification } from "./raise-notification.ts";

export const GATE_FAILURES_GROUP = "notifier.gate-failures";
export const gateFailedEvents = topicContract(TOPICS.domainEvents, GateFailedSchema);

export function gateFailedHandler(deps: RaiseDeps) {
  return async (em: EntityManager, event: GateFailed, meta: EventMeta): Promise<void> => {
    const content = gateFailedNotification(event);
    if (!content || !event.teamId) return;
    const people = await deps.recipients.of(event.teamId, GATE_FAILED_ROLES, []);
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
