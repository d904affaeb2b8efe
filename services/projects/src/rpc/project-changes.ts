// Changing a project: the PATCH (UpdateProject) and the soft delete (ArchiveProject). Each runs in one transaction
// on the locked row with its domain and audit events; a change that changes nothing writes and emits nothing.
import { create } from "@bufbuild/protobuf";
import type { HandlerContext } from "@connectrpc/connect";
import type { EntityManager } from "@mikro-orm/postgresql";
import { callerActor } from "@sca/audit";
import { ProblemError } from "@sca/problem";
import {
  ArchiveProjectResponseSchema,
  UpdateProjectResponseSchema,
  type ArchiveProjectRequest,
  type UpdateProjectRequest,
} from "@sca/proto/sca/projects/v1/projects_pb.ts";
import { requireCaller, type Caller } from "@sca/rpc";
import { seal } from "@sca/secret-box";
import { mayArchive, mayRead, mayUpdate, type Decision } from "../domain/project-access.ts";
import { CHANGE_FIELD_NAMES, isUuid, planPatch, type ProjectChanges } from "../domain/project-fields.ts";
import { emitAudit, emitProjectArchived, emitProjectUpdated } from "../events/project-events.ts";
import {
  archiveProject,
  lockProject,
  updateProject,
  type ProjectColumnChanges,
  type ProjectRow,
} from "../store/projects.ts";
import type { ProjectHandlers, ProjectServiceDeps } from "./project-deps.ts";
import { enforce, projectNotFound } from "./project-lookup.ts";
import { projectViews } from "./project-views.ts";

const archivedProject = () =>
  new ProblemError({
    status: 409,
    code: "project_archived",
    detail: "The project is archived; it can no longer be changed.",
  });

/** The locked project a change names: 404 missing, 403 unreadable or `decide` refusing. */
async function lockedFor(
  em: EntityManager,
  caller: Caller,
  id: string,
  decide: (c: Caller, p: ProjectRow) => Decision,
  refusal: string,
): Promise<ProjectRow> {
  if (!isUuid(id)) throw projectNotFound();
  const row = await lockProject(em, id.toLowerCase());
  if (!row) throw projectNotFound();
  if (!mayRead(caller, row)) throw ProblemError.forbidden("You are not a member of this project's team.");
  enforce(decide(caller, row), refusal);
  return row;
}

/** The changes that differ from the row, as columns (the credential sealed), with their API names. */
function effectiveChanges(
  row: ProjectRow,
  changes: ProjectChanges,
  credentialKey: Buffer,
): { columns: ProjectColumnChanges; fields: string[] } {
  const columns: ProjectColumnChanges = {};
  const fields: string[] = [];
  for (const key of Object.keys(CHANGE_FIELD_NAMES) as (keyof ProjectChanges)[]) {
    const value = changes[key];
    if (value === undefined) continue;
    if (key === "gitCredential") {
      const credential = changes.gitCredential!;
      // Clearing nothing changes nothing; a new credential always counts (its old value is never compared).
      if (credential.kind === "clear" && !row.hasGitCredential) continue;
      columns.gitCredentialSealed = credential.kind === "set" ? seal(credential.value, credentialKey) : null;
    } else {
      if (row[key] === value) continue;
      (columns as Record<string, unknown>)[key] = value;
    }
    fields.push(CHANGE_FIELD_NAMES[key]);
  }
  return { columns, fields };
}

export function projectChangeHandlers(deps: ProjectServiceDeps): ProjectHandlers<"updateProject" | "archiveProject"> {
  return {
    async updateProject(req: UpdateProjectRequest, ctx: HandlerContext) {
      const caller = requireCaller(ctx);
      const planned = planPatch({
        name: req.name,
        description: req.description,
        defaultBranch: req.defaultBranch,
        gitUrl: req.gitUrl,
        visibility: req.visibility,
        businessUnit: req.businessUnit,
        declaredLicense: req.declaredLicense,
        distributionModel: req.distributionModel,
        aiUsageContext: req.aiUsageContext,
        ownerContact: req.ownerContact,
        gitCredential: req.gitCredential,
        clearGitCredential: req.clearGitCredential,
      });
      if (!planned.ok) throw ProblemError.validation(planned.violations);
      const now = new Date();
      const row = await deps.orm.em.fork().transactional(async (em) => {
        const current = await lockedFor(
          em,
          caller,
          req.projectId,
          mayUpdate,
          "Updating a project needs the team_admin role on its team.",
        );
        if (current.archivedAt) throw archivedProject();
        const { columns, fields } = effectiveChanges(current, planned.changes, deps.credentialKey);
        if (fields.length === 0) return current;
        const updated = (await updateProject(em, current.id, columns))!;
        emitProjectUpdated(em, updated, fields, now);
        const credential = planned.changes.gitCredential;
        emitAudit(em, {
          action: "project.updated",
          actor: callerActor(caller),
          targetId: updated.id,
          teamId: updated.teamId,
          organizationId: updated.organizationId,
          outcome: "success",
          at: now,
          // Which fields changed, never their values (the credential least of all).
          details: {
            fields: fields.join(","),
            ...(credential && fields.includes("git_credential")
              ? { git_credential: credential.kind === "set" ? "set" : "cleared" }
              : {}),
          },
        });
        return updated;
      });
      deps.wakeRelay();
      const [project] = await projectViews(deps.directory, caller, [row]);
      return create(UpdateProjectResponseSchema, { project });
    },

    async archiveProject(req: ArchiveProjectRequest, ctx: HandlerContext) {
      const caller = requireCaller(ctx);
      const now = new Date();
      const row = await deps.orm.em.fork().transactional(async (em) => {
        const current = await lockedFor(
          em,
          caller,
          req.projectId,
          mayArchive,
          "Archiving a project needs the developer role or above on its team.",
        );
        // Archiving again changes nothing (DELETE is idempotent).
        if (current.archivedAt) return current;
        const archived = (await archiveProject(em, current.id))!;
        emitProjectArchived(em, archived, now);
        emitAudit(em, {
          action: "project.archived",
          actor: callerActor(caller),
          targetId: archived.id,
          teamId: archived.teamId,
          organizationId: archived.organizationId,
          outcome: "success",
          at: now,
        });
        return archived;
      });
      deps.wakeRelay();
      const [project] = await projectViews(deps.directory, caller, [row]);
      return create(ArchiveProjectResponseSchema, { project });
    },
  };
}
