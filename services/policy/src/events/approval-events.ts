// The events of approval requests, written to the outbox in the transaction of the change they report (the audit
// events go through policy's emitAudit): ApprovalRequested on creation, ApprovalDecided on approved or rejected.
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { EntityManager } from "@mikro-orm/postgresql";
import { enqueue, topicContract, TOPICS } from "@sca/kafka";
import {
  ApprovalDecidedSchema,
  ApprovalFactsSchema,
  ApprovalRequestedSchema,
} from "@sca/proto/sca/events/v1/approvals_pb.ts";
import type { ApprovalRequestRow } from "../store/approvals.ts";

export const approvalEvents = topicContract(TOPICS.domainEvents, ApprovalRequestedSchema, ApprovalDecidedSchema);

function factsOf(row: ApprovalRequestRow) {
  return create(ApprovalFactsSchema, {
    approvalId: row.id,
    projectId: row.projectId,
    teamId: row.teamId,
    organizationId: row.organizationId ?? "",
    componentId: row.componentId,
    componentName: row.componentName,
    requestedByUserId: row.requestedByUserId,
  });
}

export function emitApprovalRequested(em: EntityManager, row: ApprovalRequestRow): void {
  enqueue(
    em,
    approvalEvents,
    row.id,
    create(ApprovalRequestedSchema, { occurredAt: timestampFromDate(row.requestedAt), approval: factsOf(row) }),
  );
}

export function emitApprovalDecided(em: EntityManager, row: ApprovalRequestRow): void {
  enqueue(
    em,
    approvalEvents,
    row.id,
    create(ApprovalDecidedSchema, {
      occurredAt: timestampFromDate(row.decidedAt ?? row.updatedAt),
      approval: factsOf(row),
      status: row.status,
      decidedByUserId: row.decidedByUserId ?? "",
    }),
  );
}
