// The approval_requests table: one request, the page a caller's filter selects, the project names copy.
import { LockMode, type EntityManager, type FilterQuery } from "@mikro-orm/postgresql";
import { SNAPSHOT } from "@sca/db";
import type { ApprovalListScope } from "../domain/approval-access.ts";
import { ApprovalRequest, type ApprovalRequestRow } from "./entities/approval.ts";

export type { ApprovalRequestRow } from "./entities/approval.ts";

export async function insertApproval(em: EntityManager, row: ApprovalRequestRow): Promise<void> {
  await em.insert(ApprovalRequest, row);
}

export function findApproval(em: EntityManager, id: string): Promise<ApprovalRequestRow | null> {
  return em.findOne(ApprovalRequest, { id }, SNAPSHOT);
}

/** The row, locked until the transaction ends: concurrent transitions of one request queue here. */
export function lockApproval(em: EntityManager, id: string): Promise<ApprovalRequestRow | null> {
  return em.findOne(ApprovalRequest, { id }, { ...SNAPSHOT, lockMode: LockMode.PESSIMISTIC_WRITE });
}

export async function updateApproval(
  em: EntityManager,
  id: string,
  changes: Pick<ApprovalRequestRow, "status" | "version" | "updatedAt"> &
    Partial<Pick<ApprovalRequestRow, "decidedByUserId" | "decidedAt" | "decisionNote">>,
): Promise<ApprovalRequestRow> {
  await em.nativeUpdate(ApprovalRequest, { id }, changes);
  return (await em.findOne(ApprovalRequest, { id }, SNAPSHOT))!;
}

export async function deleteApproval(em: EntityManager, id: string): Promise<void> {
  await em.nativeDelete(ApprovalRequest, { id });
}

export interface ApprovalQuery {
  statuses: string[];
  teamId: string | null;
  projectId: string | null;
  requestedByUserId: string | null;
  from: Date | null;
  to: Date | null;
}

/** A page of the requests the scope shows and the query selects, newest first. */
export async function listApprovals(
  em: EntityManager,
  scope: ApprovalListScope,
  query: ApprovalQuery,
  page: { limit: number; offset: number },
): Promise<{ rows: ApprovalRequestRow[]; total: number }> {
  const where: FilterQuery<ApprovalRequestRow> = {};
  if (scope.kind === "teams") where.teamId = { $in: scope.teamIds };
  if (query.teamId) where.$and = [{ teamId: query.teamId }];
  if (query.statuses.length > 0) where.status = { $in: query.statuses };
  if (query.projectId) where.projectId = query.projectId;
  if (query.requestedByUserId) where.requestedByUserId = query.requestedByUserId;
  if (query.from || query.to)
    where.requestedAt = { ...(query.from ? { $gte: query.from } : {}), ...(query.to ? { $lt: query.to } : {}) };
  const [rows, total] = await em.findAndCount(ApprovalRequest, where, {
    ...SNAPSHOT,
    orderBy: { requestedAt: "desc", id: "desc" },
    limit: page.limit,
    offset: page.offset,
  });
  return { rows, total };
}

/** Keeps the copied project name and slug current (ProjectUpdated). */
export async function renameProject(em: EntityManager, projectId: string, name: string, slug: string): Promise<void> {
  await em.nativeUpdate(ApprovalRequest, { projectId }, { projectName: name, projectSlug: slug });
}

/** The project's requests still to decide, per status (the governance band). */
export async function undecidedApprovals(
  em: EntityManager,
  projectId: string,
): Promise<{ pending: number; underReview: number }> {
  const [pending, underReview] = await Promise.all([
    em.count(ApprovalRequest, { projectId, status: "pending" }),
    em.count(ApprovalRequest, { projectId, status: "under_review" }),
  ]);
  return { pending, underReview };
}
