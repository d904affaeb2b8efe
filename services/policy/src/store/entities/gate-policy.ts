import { defineEntity, p, type InferEntity } from "@mikro-orm/postgresql";

/**
 * A gate policy: a team's (team_id set) or its organization's default (team_id null), at most one of each. A null
 * setting column inherits; epss_threshold null with epss_threshold_set true is "off here" (docs/gate.md).
 */
export const GatePolicy = defineEntity({
  name: "GatePolicy",
  tableName: "gate_policies",
  properties: {
    id: p.uuid().primary(),
    organizationId: p.uuid(),
    teamId: p.uuid().strictNullable(),
    name: p.string().length(255).strictNullable(),
    approvalRequiredStatuses: p.json<string[]>().strictNullable(),
    epssThreshold: p.double().strictNullable(),
    epssThresholdSet: p.boolean().default(false),
    maliciousBlocks: p.boolean().strictNullable(),
    reachableCriticalOnly: p.boolean().strictNullable(),
    /** Counts the changes; an upsert that changes nothing leaves it. */
    version: p.integer().default(1),
    createdByUserId: p.uuid().strictNullable(),
    updatedByUserId: p.uuid().strictNullable(),
    createdAt: p.datetime().defaultRaw("now()"),
    updatedAt: p.datetime().defaultRaw("now()"),
  },
  uniques: [
    {
      name: "gate_policies_team",
      expression: "create unique index gate_policies_team on gate_policies (team_id) where team_id is not null",
    },
    {
      name: "gate_policies_organization_default",
      expression:
        "create unique index gate_policies_organization_default on gate_policies (organization_id) where team_id is null",
    },
  ],
});

export type GatePolicyRow = InferEntity<typeof GatePolicy>;
