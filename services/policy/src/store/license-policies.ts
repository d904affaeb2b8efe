// The license_policies table: a team's policy, an organization's default, the list a caller may see.
import { LockMode, type EntityManager, type FilterQuery } from "@mikro-orm/postgresql";
import { SNAPSHOT } from "@sca/db";
import type { PolicyListScope } from "../domain/policy-access.ts";
import { LicensePolicy, type LicensePolicyRow } from "./entities/license-policy.ts";

export type { LicensePolicyRow } from "./entities/license-policy.ts";

/** Which policy: a team's, or an organization's default. */
export type PolicyScope = { kind: "team"; teamId: string } | { kind: "organization"; organizationId: string };

function whereScope(scope: PolicyScope): FilterQuery<LicensePolicyRow> {
  return scope.kind === "team" ? { teamId: scope.teamId } : { organizationId: scope.organizationId, teamId: null };
}

export function findPolicy(em: EntityManager, scope: PolicyScope): Promise<LicensePolicyRow | null> {
  return em.findOne(LicensePolicy, whereScope(scope), SNAPSHOT);
}

export function lockPolicy(em: EntityManager, scope: PolicyScope): Promise<LicensePolicyRow | null> {
  return em.findOne(LicensePolicy, whereScope(scope), { ...SNAPSHOT, lockMode: LockMode.PESSIMISTIC_WRITE });
}

/** The columns an upsert writes. */
export type PolicyColumns = Pick<
  LicensePolicyRow,
  "name" | "categoryOverrides" | "licenseExceptions" | "unknownLicenseCategory" | "compoundOperatorStrategy" | "enabled"
>;

export async function insertPolicy(
  em: EntityManager,
  row: PolicyColumns &
    Pick<LicensePolicyRow, "id" | "organizationId" | "teamId" | "createdByUserId" | "updatedByUserId" | "createdAt">,
): Promise<LicensePolicyRow> {
  await em.insert(LicensePolicy, { ...row, version: 1, updatedAt: row.createdAt });
  return (await em.findOne(LicensePolicy, { id: row.id }, SNAPSHOT))!;
}

export async function updatePolicy(
  em: EntityManager,
  current: LicensePolicyRow,
  columns: PolicyColumns & Pick<LicensePolicyRow, "updatedByUserId" | "updatedAt" | "organizationId">,
): Promise<LicensePolicyRow> {
  await em.nativeUpdate(LicensePolicy, { id: current.id }, { ...columns, version: current.version + 1 });
  return (await em.findOne(LicensePolicy, { id: current.id }, SNAPSHOT))!;
}

export async function deletePolicy(em: EntityManager, id: string): Promise<void> {
  await em.nativeDelete(LicensePolicy, { id });
}

/** A page of the policies the scope shows: organization defaults first, then team policies, each by id. */
export async function listPolicies(
  em: EntityManager,
  scope: PolicyListScope,
  page: { limit: number; offset: number },
): Promise<{ rows: LicensePolicyRow[]; total: number }> {
  const where: FilterQuery<LicensePolicyRow> =
    scope.kind === "all"
      ? {}
      : {
          $or: [{ teamId: { $in: scope.teamIds } }, { teamId: null, organizationId: { $in: scope.organizationIds } }],
        };
  const [rows, total] = await em.findAndCount(LicensePolicy, where, {
    ...SNAPSHOT,
    // Nulls first: an organization default (no team) before the team policies.
    orderBy: { teamId: "asc nulls first", organizationId: "asc", id: "asc" },
    limit: page.limit,
    offset: page.offset,
  });
  return { rows, total };
}
