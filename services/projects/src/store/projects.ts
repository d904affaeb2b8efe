// The projects table: the one module that reads or writes `projects` (docs/adr/0005). Who may see which rows is
// decided in domain/ (a ListScope); this module turns it and the list's filter into one query. Raw SQL only inside an
// ingestion's bulk transaction (no EntityManager there) and for the summaries' recount, one update from the
// inventory's counts (ADR 9).
import { randomUUID } from "node:crypto";
import { LockMode, raw, type EntityManager, type FilterQuery } from "@mikro-orm/postgresql";
import { column, containsPattern, rawStatement, SNAPSHOT, type BulkTransaction } from "@sca/db";
import type { ListScope } from "../domain/project-access.ts";
import type { NewProjectPlan, ProjectDetails, Visibility } from "../domain/project-fields.ts";
import { DISTRIBUTION_MODEL_UNSET } from "../domain/project-fields.ts";
import { Project, type ProjectRow } from "./entities/project.ts";
import { inventorySummaryOf } from "./inventory/summary.ts";

export type { ProjectRow } from "./entities/project.ts";

/** Each project's access scope, for another owner's statement that reads it with its own rows (ADR 9). */
export const PROJECT_ACCESS_ROWS = "select id, team_id, organization_id, visibility from projects";

/** The projects not archived, with their team (ADR 9). */
export const ACTIVE_PROJECT_ROWS = "select id, team_id from projects where archived_at is null";

export async function projectById(em: EntityManager, id: string): Promise<ProjectRow | null> {
  return em.findOne(Project, { id }, SNAPSHOT);
}

/** The project, its row locked until the transaction ends (run inside em.transactional). */
export async function lockProject(em: EntityManager, id: string): Promise<ProjectRow | null> {
  return em.findOne(Project, { id }, { ...SNAPSHOT, lockMode: LockMode.PESSIMISTIC_WRITE });
}

/** The active project of the team with this slug. */
export async function activeProjectBySlug(em: EntityManager, teamId: string, slug: string): Promise<ProjectRow | null> {
  return em.findOne(Project, { teamId, slug, archivedAt: null }, SNAPSHOT);
}

export interface NewProject extends NewProjectPlan {
  organizationId: string | null;
  createdByUserId: string | null;
}

/** The new project, or null when the team already has an active project with the slug. */
export async function insertProject(em: EntityManager, p: NewProject): Promise<ProjectRow | null> {
  const id = randomUUID();
  const inserted = await em
    .createQueryBuilder(Project)
    .insert({
      id,
      teamId: p.teamId,
      organizationId: p.organizationId,
      name: p.name,
      slug: p.slug,
      visibility: p.visibility,
      description: p.description,
      defaultBranch: p.defaultBranch,
      gitUrl: p.gitUrl,
      businessUnit: p.businessUnit,
      declaredLicense: p.declaredLicense,
      distributionModel: p.distributionModel,
      aiUsageContext: p.aiUsageContext,
      ownerContact: p.ownerContact,
      createdByUserId: p.createdByUserId,
    })
    .onConflict()
    .ignore()
    .execute<{ affectedRows: number }>("run");
  return inserted.affectedRows === 0 ? null : projectById(em, id);
}

/** Column changes of an update; gitCredentialSealed null removes the credential. */
export interface ProjectColumnChanges extends Partial<ProjectDetails> {
  name?: string;
  visibility?: Visibility;
  gitCredentialSealed?: string | null;
}

export async function updateProject(
  em: EntityManager,
  id: string,
  c: ProjectColumnChanges,
): Promise<ProjectRow | null> {
  const { gitCredentialSealed, ...plain } = c;
  const credential =
    gitCredentialSealed === undefined ? {} : { gitCredentialSealed, hasGitCredential: gitCredentialSealed !== null };
  await em.nativeUpdate(Project, { id }, { ...plain, ...credential, updatedAt: raw("now()") });
  return projectById(em, id);
}

export async function archiveProject(em: EntityManager, id: string): Promise<ProjectRow | null> {
  await em.nativeUpdate(Project, { id, archivedAt: null }, { archivedAt: raw("now()"), updatedAt: raw("now()") });
  return projectById(em, id);
}

// The summaries take the newest snapshot's counts (inventory/summary.ts); both parameters are the project id.
// `?` placeholders (rawStatement's); the bulk transaction numbers them.
const RECOUNT = `update projects set (license_category_summary, severity_summary) = (${inventorySummaryOf("?")})
  where id = ?`;
const RECOUNT_NUMBERED = (() => {
  let n = 0;
  return RECOUNT.replace(/\?/g, () => `$${++n}`);
})();

/** Recounts the project's inventory summaries inside the caller's (or any EntityManager's) transaction. */
export async function recountInventorySummary(em: EntityManager, projectId: string): Promise<void> {
  await rawStatement(em, RECOUNT, [projectId, projectId]);
}

/** The same for several projects in one statement (a re-match touches many). */
export async function recountInventorySummaries(em: EntityManager, projectIds: readonly string[]): Promise<void> {
  if (projectIds.length === 0) return;
  await rawStatement(
    em,
    `update projects p set (license_category_summary, severity_summary) = (${inventorySummaryOf("p.id")})
     where p.id in (select value::uuid from jsonb_array_elements_text(?::jsonb))`,
    [JSON.stringify(projectIds)],
  );
}

/** The same, inside an ingestion's bulk transaction. */
export async function recountInventorySummaryIn(tx: BulkTransaction, projectId: string): Promise<void> {
  await tx.statement(RECOUNT_NUMBERED, [projectId, projectId]);
}

/** Whether the project exists, inside an ingestion's bulk transaction. */
export async function projectExistsIn(tx: BulkTransaction, id: string): Promise<boolean> {
  return (await tx.query("select id from projects where id = $1", [id], { id: column.text })).length > 0;
}

/** The sealed git credential (for the scan that clones the repository), or null. */
export async function sealedGitCredential(em: EntityManager, id: string): Promise<string | null> {
  const row = await em.findOne(Project, { id }, { ...SNAPSHOT, fields: ["id", "gitCredentialSealed"] });
  return row?.gitCredentialSealed ?? null;
}

export interface ProjectFilter {
  teamId?: string;
  includeArchived: boolean;
  q?: string;
  businessUnit?: string;
  /** A distribution model, or "unset". */
  distributionModel?: string;
}

/** `text` matched whole and case-insensitively by $ilike. */
function exactPattern(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** The query of the rows `scope` shows that match `filter`; null when it can match nothing. */
function selection(scope: ListScope, filter: ProjectFilter): FilterQuery<ProjectRow> | null {
  const and: FilterQuery<ProjectRow>[] = [];
  if (scope.kind === "some") {
    const reach: FilterQuery<ProjectRow>[] = [];
    if (scope.teamIds.length) reach.push({ teamId: { $in: scope.teamIds } });
    if (scope.organizationIds.length)
      reach.push({ visibility: "organization", organizationId: { $in: scope.organizationIds } });
    if (reach.length === 0) return null;
    and.push({ $or: reach });
    if (scope.onlyProjectId !== null) and.push({ id: scope.onlyProjectId });
  }
  if (!filter.includeArchived) and.push({ archivedAt: null });
  if (filter.teamId !== undefined) and.push({ teamId: filter.teamId });
  if (filter.q)
    and.push({
      $or: [{ name: { $ilike: containsPattern(filter.q) } }, { slug: { $ilike: containsPattern(filter.q) } }],
    });
  if (filter.businessUnit !== undefined) and.push({ businessUnit: { $ilike: exactPattern(filter.businessUnit) } });
  if (filter.distributionModel !== undefined) {
    and.push({
      distributionModel: filter.distributionModel === DISTRIBUTION_MODEL_UNSET ? null : filter.distributionModel,
    });
  }
  return and.length ? { $and: and } : {};
}

const ORDER = { orderBy: { name: "asc", id: "asc" } } as const;

export async function listProjects(
  em: EntityManager,
  scope: ListScope,
  filter: ProjectFilter,
  limit: number,
  offset: number,
): Promise<{ rows: ProjectRow[]; total: number }> {
  const where = selection(scope, filter);
  if (!where) return { rows: [], total: 0 };
  const [rows, total] = await em.findAndCount(Project, where, { ...SNAPSHOT, ...ORDER, limit, offset });
  return { rows, total };
}

/** Every matching row in list order, `chunk` rows at a time (keyset on name and id: no rows skipped or repeated). */
export async function* exportProjects(
  em: EntityManager,
  scope: ListScope,
  filter: ProjectFilter,
  chunk: number,
): AsyncGenerator<ProjectRow[]> {
  const where = selection(scope, filter);
  if (!where) return;
  let after: { name: string; id: string } | null = null;
  for (;;) {
    const page: FilterQuery<ProjectRow> = after
      ? { $and: [where, { $or: [{ name: { $gt: after.name } }, { name: after.name, id: { $gt: after.id } }] }] }
      : where;
    const rows: ProjectRow[] = await em.find(Project, page, { ...SNAPSHOT, ...ORDER, limit: chunk });
    if (rows.length === 0) return;
    yield rows;
    if (rows.length < chunk) return;
    const last: ProjectRow = rows[rows.length - 1]!;
    after = { name: last.name, id: last.id };
  }
}

/** The team of each of these projects, by project id. */
export async function projectTeams(em: EntityManager, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await em.find(Project, { id: { $in: [...ids] } }, { ...SNAPSHOT, fields: ["id", "teamId"] });
  return new Map(rows.map((r) => [r.id, r.teamId]));
}

/** The projects whose license policy in force may have changed: a team's, or every team's of an organization. */
export async function projectsUnderLicensePolicy(
  em: EntityManager,
  scope: { teamId: string } | { organizationId: string },
): Promise<Pick<ProjectRow, "id" | "teamId" | "distributionModel" | "aiUsageContext">[]> {
  return em.find(Project, "teamId" in scope ? { teamId: scope.teamId } : { organizationId: scope.organizationId }, {
    ...SNAPSHOT,
    fields: ["id", "teamId", "distributionModel", "aiUsageContext"],
    orderBy: { id: "asc" },
  });
}
