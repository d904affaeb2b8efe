// The gate_policies table: a team's policy and an organization's default, with the settings they set.
import { LockMode, type EntityManager, type FilterQuery } from "@mikro-orm/postgresql";
import { SNAPSHOT } from "@sca/db";
import type { FindingStatus, GateSettings } from "../domain/gate-policy.ts";
import { GatePolicy, type GatePolicyRow } from "./entities/gate-policy.ts";
import type { PolicyScope } from "./license-policies.ts";

export type { GatePolicyRow } from "./entities/gate-policy.ts";

function whereScope(scope: PolicyScope): FilterQuery<GatePolicyRow> {
  return scope.kind === "team" ? { teamId: scope.teamId } : { organizationId: scope.organizationId, teamId: null };
}

/** The columns an upsert writes. */
export type GatePolicyColumns = Pick<
  GatePolicyRow,
  | "name"
  | "approvalRequiredStatuses"
  | "epssThreshold"
  | "epssThresholdSet"
  | "maliciousBlocks"
  | "reachableCriticalOnly"
>;

export function columnsOfSettings(name: string | null, s: GateSettings): GatePolicyColumns {
  return {
    name,
    approvalRequiredStatuses: s.approval_required_statuses ?? null,
    epssThreshold: s.epss_threshold ?? null,
    epssThresholdSet: s.epss_threshold !== undefined,
    maliciousBlocks: s.malicious_blocks ?? null,
    reachableCriticalOnly: s.reachable_critical_only ?? null,
  };
}

/** What the row sets, keys absent for the fields it inherits. */
export function settingsOf(row: GatePolicyColumns): GateSettings {
  return {
    ...(row.approvalRequiredStatuses !== null
      ? { approval_required_statuses: row.approvalRequiredStatuses as FindingStatus[] }
      : {}),
    ...(row.epssThresholdSet ? { epss_threshold: row.epssThreshold === null ? null : Number(row.epssThreshold) } : {}),
    ...(row.maliciousBlocks !== null ? { malicious_blocks: row.maliciousBlocks } : {}),
    ...(row.reachableCriticalOnly !== null ? { reachable_critical_only: row.reachableCriticalOnly } : {}),
  };
}

export function findGatePolicy(em: EntityManager, scope: PolicyScope): Promise<GatePolicyRow | null> {
  return em.findOne(GatePolicy, whereScope(scope), SNAPSHOT);
}

/** The team's policy and its organization's default, in one query. */
export async function gatePoliciesFor(
  em: EntityManager,
  teamId: string,
  organizationId: string | null,
): Promise<{ team: GatePolicyRow | null; organization: GatePolicyRow | null }> {
  const rows = await em.find(
    GatePolicy,
    organizationId ? { $or: [{ teamId }, { organizationId, teamId: null }] } : { teamId },
    SNAPSHOT,
  );
  return {
    team: rows.find((r) => r.teamId === teamId) ?? null,
    organization: rows.find((r) => r.teamId === null) ?? null,
  };
}

export function lockGatePolicy(em: EntityManager, scope: PolicyScope): Promise<GatePolicyRow | null> {
  return em.findOne(GatePolicy, whereScope(scope), { ...SNAPSHOT, lockMode: LockMode.PESSIMISTIC_WRITE });
}

export async function insertGatePolicy(
  em: EntityManager,
  row: GatePolicyColumns &
    Pick<GatePolicyRow, "id" | "organizationId" | "teamId" | "createdByUserId" | "updatedByUserId" | "createdAt">,
): Promise<GatePolicyRow> {
  await em.insert(GatePolicy, { ...row, version: 1, updatedAt: row.createdAt });
  return (await em.findOne(GatePolicy, { id: row.id }, SNAPSHOT))!;
}

export async function updateGatePolicy(
  em: EntityManager,
  current: GatePolicyRow,
  columns: GatePolicyColumns & Pick<GatePolicyRow, "updatedByUserId" | "updatedAt" | "organizationId">,
): Promise<GatePolicyRow> {
  await em.nativeUpdate(GatePolicy, { id: current.id }, { ...columns, version: current.version + 1 });
  return (await em.findOne(GatePolicy, { id: current.id }, SNAPSHOT))!;
}

export async function deleteGatePolicy(em: EntityManager, id: string): Promise<void> {
  await em.nativeDelete(GatePolicy, { id });
}
