// An approval_requests row as the contract's Approval; an organization_verdicts row as OrganizationVerdict, with
// the deliberation and names only for writers.
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { ApprovalSchema, type Approval } from "@sca/proto/sca/policy/v1/approvals_pb.ts";
import {
  OrganizationVerdictSchema,
  type OrganizationVerdict,
} from "@sca/proto/sca/policy/v1/organization_verdicts_pb.ts";
import type { VerdictReach } from "../domain/approval-access.ts";
import type { ApprovalRequestRow } from "../store/approvals.ts";
import type { OrganizationVerdictRow } from "../store/organization-verdicts.ts";

/** `names`: display names of requesters by user id (identity's, at read time). */
export function approvalView(row: ApprovalRequestRow, names: Map<string, string>): Approval {
  return create(ApprovalSchema, {
    id: row.id,
    projectId: row.projectId,
    projectName: row.projectName,
    projectSlug: row.projectSlug,
    teamId: row.teamId,
    componentId: row.componentId,
    componentName: row.componentName,
    ...(row.componentPurl !== null ? { componentPurl: row.componentPurl } : {}),
    status: row.status,
    version: row.version,
    requestedByUserId: row.requestedByUserId,
    requestedByName: names.get(row.requestedByUserId) ?? "",
    requestedAt: timestampFromDate(row.requestedAt),
    ...(row.decidedByUserId !== null ? { decidedByUserId: row.decidedByUserId } : {}),
    ...(row.decidedAt !== null ? { decidedAt: timestampFromDate(row.decidedAt) } : {}),
    ...(row.decisionNote !== null ? { decisionNote: row.decisionNote } : {}),
  });
}

export function verdictView(row: OrganizationVerdictRow, reach: VerdictReach): OrganizationVerdict {
  const writer = reach === "writer";
  return create(OrganizationVerdictSchema, {
    id: row.id,
    organizationId: row.organizationId,
    componentId: row.componentId,
    justification: row.justification,
    status: row.status,
    version: row.version,
    ...(writer ? { requestedByUserId: row.requestedByUserId } : {}),
    ...(writer && row.decidedByUserId !== null ? { decidedByUserId: row.decidedByUserId } : {}),
    ...(row.decidedAt !== null ? { decidedAt: timestampFromDate(row.decidedAt) } : {}),
    ...(writer && row.decisionNote !== null ? { decisionNote: row.decisionNote } : {}),
    createdAt: timestampFromDate(row.createdAt),
    updatedAt: timestampFromDate(row.updatedAt),
  });
}
