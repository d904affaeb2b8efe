// The organization_verdicts table.
import { LockMode, type EntityManager, type FilterQuery } from "@mikro-orm/postgresql";
import { SNAPSHOT } from "@sca/db";
import { OrganizationVerdict, type OrganizationVerdictRow } from "./entities/organization-verdict.ts";

export type { OrganizationVerdictRow } from "./entities/organization-verdict.ts";

export async function insertVerdict(em: EntityManager, row: OrganizationVerdictRow): Promise<void> {
  await em.insert(OrganizationVerdict, row);
}

export function findVerdictOf(
  em: EntityManager,
  organizationId: string,
  componentId: string,
): Promise<OrganizationVerdictRow | null> {
  return em.findOne(OrganizationVerdict, { organizationId, componentId }, SNAPSHOT);
}

export function lockVerdict(
  em: EntityManager,
  organizationId: string,
  id: string,
): Promise<OrganizationVerdictRow | null> {
  return em.findOne(OrganizationVerdict, { id, organizationId }, { ...SNAPSHOT, lockMode: LockMode.PESSIMISTIC_WRITE });
}

export async function updateVerdict(
  em: EntityManager,
  id: string,
  changes: Pick<OrganizationVerdictRow, "status" | "version" | "updatedAt" | "decidedByUserId" | "decidedAt"> &
    Partial<Pick<OrganizationVerdictRow, "decisionNote">>,
): Promise<OrganizationVerdictRow> {
  await em.nativeUpdate(OrganizationVerdict, { id }, changes);
  return (await em.findOne(OrganizationVerdict, { id }, SNAPSHOT))!;
}

/** A page of the organization's rulings, newest first. */
export async function listVerdicts(
  em: EntityManager,
  organizationId: string,
  statuses: string[],
  page: { limit: number; offset: number },
): Promise<{ rows: OrganizationVerdictRow[]; total: number }> {
  const where: FilterQuery<OrganizationVerdictRow> = { organizationId };
  if (statuses.length > 0) where.status = { $in: statuses };
  const [rows, total] = await em.findAndCount(OrganizationVerdict, where, {
    ...SNAPSHOT,
    orderBy: { createdAt: "desc", id: "desc" },
    limit: page.limit,
    offset: page.offset,
  });
  return { rows, total };
}
