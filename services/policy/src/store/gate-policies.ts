// The gate_policies table: a team's policy and an organization's default, with the settings they set.
import { LockMode, type EntityManager, type FilterQuery } from "@mikro-orm/postgresql";
import { column, preparedQuery, SNAPSHOT } from "@sca/db";
import type { VexState } from "@sca/vocabulary";
import type { GateSettings } from "../domain/gate-policy.ts";
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
      ? { approval_required_statuses: row.approvalRequiredStatuses as VexState[] }
      : {}),
    ...(row.epssThresholdSet ? { epss_threshold: row.epssThreshold === null ? null : Number(row.epssThreshold) } : {}),
    ...(row.maliciousBlocks !== null ? { malicious_blocks: row.maliciousBlocks } : {}),
    ...(row.reachableCriticalOnly !== null ? { reachable_critical_only: row.reachableCriticalOnly } : {}),
  };
}

export function findGatePolicy(em: EntityManager, scope: PolicyScope): Promise<GatePolicyRow | null> {
  return em.findOne(GatePolicy, whereScope(scope), SNAPSHOT);
}

const GATE_POLICY_COLUMNS = {
  id: column.text,
  organizationId: column.text,
  teamId: column.text.nullable,
  name: column.text.nullable,
  approvalRequiredStatuses: column.json<string[]>().nullable,
  epssThreshold: column.number.nullable,
  epssThresholdSet: column.boolean,
  maliciousBlocks: column.boolean.nullable,
  reachableCriticalOnly: column.boolean.nullable,
  version: column.integer,
  createdByUserId: column.text.nullable,
  updatedByUserId: column.text.nullable,
  createdAt: column.timestamp,
  updatedAt: column.timestamp,
};

/**
 * The team's policy and its organization's default, in one query. Prepared and outside any transaction (a read of
 * committed rows, as a statement in one sees them): every gate verdict asks it, and the ORM's find cost policy a
 * tenth of its time per verdict.
 */
export async function gatePoliciesFor(
  em: EntityManager,
  teamId: string,
  organizationId: string | null,
): Promise<{ team: GatePolicyRow | null; organization: GatePolicyRow | null }> {
  const rows: GatePolicyRow[] = await preparedQuery(
    em,
    "policy.gate-policies-for.v1",
    `select id, organization_id, team_id, name, approval_required_statuses, epss_threshold, epss_threshold_set,
            malicious_blocks, reachable_critical_only, version, created_by_user_id, updated_by_user_id, created_at,
            updated_at
       from gate_policies
      where team_id = $1::uuid or (organization_id = $2::uuid and team_id is null)`,
    [teamId, organizationId],
    GATE_POLICY_COLUMNS,
  );
  return {
    team: rows.find((r) => r.teamId === teamId) ?? null,
    organization: (organizationId && rows.find((r) => r.teamId === null)) || null,
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
