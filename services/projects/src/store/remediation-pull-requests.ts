// remediation_pull_requests: the one module that reads or writes it (docs/adr/0005).
import { UniqueConstraintViolationException } from "@mikro-orm/core";
import type { EntityManager } from "@mikro-orm/postgresql";
import { SNAPSHOT } from "@sca/db";
import { RemediationPullRequest, type RemediationPullRequestRow } from "./entities/source-host.ts";

/** The project's creating or open record of that fingerprint (at most one: a partial unique index). */
export async function liveRemediation(
  em: EntityManager,
  projectId: string,
  fingerprint: string,
): Promise<RemediationPullRequestRow | null> {
  return em.findOne(
    RemediationPullRequest,
    { projectId, fingerprint, status: { $in: ["creating", "open"] } },
    SNAPSHOT,
  );
}

/** Inserts the creating record; false when a live one of the same fingerprint won the race. */
export async function insertRemediation(em: EntityManager, row: RemediationPullRequestRow): Promise<boolean> {
  try {
    await em.insert(RemediationPullRequest, row);
    return true;
  } catch (err) {
    if (err instanceof UniqueConstraintViolationException) return false;
    throw err;
  }
}

export async function updateRemediation(
  em: EntityManager,
  id: string,
  change: Partial<Pick<RemediationPullRequestRow, "status" | "prNumber" | "prUrl" | "prState" | "failureStatus">>,
  at: Date,
): Promise<void> {
  await em.nativeUpdate(RemediationPullRequest, { id }, { ...change, updatedAt: at });
}

export async function remediationsOf(
  em: EntityManager,
  projectId: string,
  page: { offset: number; limit: number },
): Promise<{ items: RemediationPullRequestRow[]; total: number }> {
  const [items, total] = await em.findAndCount(
    RemediationPullRequest,
    { projectId },
    { ...SNAPSHOT, orderBy: { createdAt: "desc", id: "desc" }, ...page },
  );
  return { items, total };
}

/** Up to `limit` `creating` records last touched before `before`, oldest first. */
export async function abandonedCreating(
  em: EntityManager,
  before: Date,
  limit: number,
): Promise<RemediationPullRequestRow[]> {
  return em.find(
    RemediationPullRequest,
    { status: "creating", updatedAt: { $lt: before } },
    { ...SNAPSHOT, orderBy: { updatedAt: "asc", id: "asc" }, limit },
  );
}

/** Settles a record only while it is still `creating` (a request may have finished it meanwhile); false otherwise. */
export async function settleCreating(
  em: EntityManager,
  id: string,
  change: Partial<Pick<RemediationPullRequestRow, "status" | "prNumber" | "prUrl" | "prState" | "failureStatus">>,
  at: Date,
): Promise<boolean> {
  return (await em.nativeUpdate(RemediationPullRequest, { id, status: "creating" }, { ...change, updatedAt: at })) > 0;
}
