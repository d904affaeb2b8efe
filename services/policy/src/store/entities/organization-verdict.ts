import { defineEntity, p, type InferEntity } from "@mikro-orm/postgresql";

/** An organization's ruling on a component, at most one per organization and component (docs/approvals.md). */
export const OrganizationVerdict = defineEntity({
  name: "OrganizationVerdict",
  tableName: "organization_verdicts",
  properties: {
    id: p.uuid().primary(),
    organizationId: p.uuid(),
    componentId: p.uuid(),
    /** The published reason. */
    justification: p.text(),
    status: p.string().length(16),
    version: p.integer().default(1),
    requestedByUserId: p.uuid(),
    decidedByUserId: p.uuid().strictNullable(),
    decidedAt: p.datetime().strictNullable(),
    /** The deliberation: writers only. */
    decisionNote: p.text().strictNullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
  uniques: [
    {
      name: "organization_verdicts_organization_id_component_id_unique",
      properties: ["organizationId", "componentId"],
    },
  ],
  checks: [
    { name: "organization_verdicts_status_check", expression: "status in ('under_review', 'approved', 'rejected')" },
  ],
});

export type OrganizationVerdictRow = InferEntity<typeof OrganizationVerdict>;
