// ApprovalRequested and ApprovalDecided (policy's, on sca.domain.events) raise approval.requested for the team's
// reviewers (never the requester: nobody decides their own request) and approval.decided for the requester,
// routed through the team's and its organization's rules, in the event's transaction (idempotent consumer).
import type { EntityManager } from "@mikro-orm/postgresql";
import { topicContract, TOPICS, type EventMeta } from "@sca/kafka";
import {
  ApprovalDecidedSchema,
  ApprovalRequestedSchema,
  type ApprovalDecided,
  type ApprovalFacts,
  type ApprovalRequested,
} from "@sca/proto/sca/events/v1/approvals_pb.ts";
import {
  APPROVAL_REVIEWER_ROLES,
  approvalDecidedNotification,
  approvalRequestedNotification,
} from "../domain/approvals.ts";
import type { NotificationContent } from "../domain/scan-outcomes.ts";
import type { RecipientPerson } from "../clients/recipients.ts";
import type { RaiseDeps } from "./delivery-deps.ts";
import { raiseNotification } from "./raise-notification.ts";
import { occurredAtOf } from "./team-notifications.ts";

export const APPROVAL_REQUESTS_GROUP = "notifier.approval-requests";
export const APPROVAL_DECISIONS_GROUP = "notifier.approval-decisions";
export const approvalRequests = topicContract(TOPICS.domainEvents, ApprovalRequestedSchema);
export const approvalDecisions = topicContract(TOPICS.domainEvents, ApprovalDecidedSchema);

async function raiseFor(
  em: EntityManager,
  deps: RaiseDeps,
  a: ApprovalFacts,
  content: NotificationContent,
  people: RecipientPerson[],
  meta: EventMeta,
  occurredAt: Date,
): Promise<void> {
  await raiseNotification(em, deps, {
    content,
    teamId: a.teamId || null,
    projectId: a.projectId || null,
    scanId: null,
    people,
    sourceEventId: meta.eventId,
    occurredAt,
  });
}

export function approvalRequestedHandler(deps: RaiseDeps) {
  return async (em: EntityManager, event: ApprovalRequested, meta: EventMeta): Promise<void> => {
    const a = event.approval;
    if (!a) return;
    const reviewers = (await deps.recipients.of(a.teamId, APPROVAL_REVIEWER_ROLES, [])).filter(
      (p) => p.userId !== a.requestedByUserId,
    );
    await raiseFor(em, deps, a, approvalRequestedNotification(a), reviewers, meta, occurredAtOf(event, meta));
  };
}

export function approvalDecidedHandler(deps: RaiseDeps) {
  return async (em: EntityManager, event: ApprovalDecided, meta: EventMeta): Promise<void> => {
    const a = event.approval;
    const content = a ? approvalDecidedNotification(a, event.status) : null;
    if (!a || !content || !a.requestedByUserId) return;
    const requester = await deps.recipients.of(a.teamId, [], [a.requestedByUserId]);
    await raiseFor(em, deps, a, content, requester, meta, occurredAtOf(event, meta));
  };
}
