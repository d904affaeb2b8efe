import { defineEntity, p, type InferEntity } from "@mikro-orm/postgresql";

/**
 * An approval request (docs/approvals.md). The project's team and organization are copied from projects at
 * creation (projects do not change team), so scoping and filters never call another service; the project's name and
 * slug are kept current by ProjectUpdated events; the component's name and purl are those of its identity.
 */
export const ApprovalRequest = defineEntity({
  name: "ApprovalRequest",
  tableName: "approval_requests",
  properties: {
    id: p.uuid().primary(),
    projectId: p.uuid(),
    teamId: p.uuid(),
    organizationId: p.uuid().strictNullable(),
    projectName: p.string().length(255),
    projectSlug: p.string().length(64),
    componentId: p.uuid(),
    componentName: p.text(),
    componentPurl: p.text().strictNullable(),
    status: p.string().length(16),
    /** The If-Match counter: 1 on creation, one more on every transition. */
    version: p.integer().default(1),
    requestedByUserId: p.uuid(),
    requestedAt: p.datetime(),
    decidedByUserId: p.uuid().strictNullable(),
    decidedAt: p.datetime().strictNullable(),
    decisionNote: p.text().strictNullable(),
    updatedAt: p.datetime(),
  },
  indexes: [
    { name: "approval_requests_team_requested_at_index", properties: ["teamId", "requestedAt"] },
    { name: "approval_requests_project_id_index", properties: ["projectId"] },
  ],
  checks: [
    {
      name: "approval_requests_status_check",
      expression: "status in ('pending', 'under_review', 'approved', 'rejected')",
    },
  ],
});

export type ApprovalRequestRow = InferEntity<typeof ApprovalRequest>;
