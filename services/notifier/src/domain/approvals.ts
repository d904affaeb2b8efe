// What approvals tell people: approval.requested (policy's ApprovalRequested) to the team's reviewers, and
// approval.decided (ApprovalDecided) to the person who asked. Neither carries a severity.
import type { NotificationContent } from "./scan-outcomes.ts";

export interface ApprovalFacts {
  approvalId: string;
  componentName: string;
  requestedByUserId: string;
}

/** Who may decide a request (docs/approvals.md): team_admin and above on the project's team. */
export const APPROVAL_REVIEWER_ROLES: readonly string[] = ["group_admin", "team_admin"];

const link = (a: ApprovalFacts) => `/approvals/${a.approvalId}`;
const what = (a: ApprovalFacts) => a.componentName || "a component";

export function approvalRequestedNotification(a: ApprovalFacts): NotificationContent {
  return {
    kind: "approval.requested",
    severity: null,
    title: `Approval requested: ${what(a)}`,
    body: `A member of the team asked for ${what(a)} to be approved. Review the request to approve or reject it.`,
    link: link(a),
  };
}

export function approvalDecidedNotification(a: ApprovalFacts, status: string): NotificationContent | null {
  if (status !== "approved" && status !== "rejected") return null;
  return {
    kind: "approval.decided",
    severity: null,
    title: `Approval ${status}: ${what(a)}`,
    body: `Your request for ${what(a)} was ${status}.`,
    link: link(a),
  };
}
