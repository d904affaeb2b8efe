// Creating projects, one (CreateProject) or up to 200 (BatchCreateProjects). Each project is created in its own
// transaction with its domain and audit events; in a batch a failed row never undoes another.
import { create } from "@bufbuild/protobuf";
import type { HandlerContext } from "@connectrpc/connect";
import { callerActor } from "@sca/audit";
import { ProblemError, type FieldViolation } from "@sca/problem";
import {
  BatchCreateProjectsResponseSchema,
  BatchRowSchema,
  CreateProjectResponseSchema,
  type BatchCreateProjectsRequest,
  type CreateProjectRequest,
  type ProjectInput,
} from "@sca/proto/sca/projects/v1/projects_pb.ts";
import { requireCaller, type Caller } from "@sca/rpc";
import type { DirectoryNames } from "../clients/directory.ts";
import { BATCH_MAX_ROWS, summarizeBatch } from "@sca/batch";
import type { BatchRowOutcome } from "../domain/batch-result.ts";
import { mayCreate } from "../domain/project-access.ts";
import { planNewProject, type NewProjectPlan } from "../domain/project-fields.ts";
import { emitAudit, emitProjectCreated } from "../events/project-events.ts";
import { activeProjectBySlug, insertProject, type ProjectRow } from "../store/projects.ts";
import type { ProjectHandlers, ProjectServiceDeps } from "./project-deps.ts";
import { projectView } from "./project-views.ts";

type Outcome =
  | { kind: "created"; row: ProjectRow }
  | { kind: "exists"; row: ProjectRow }
  | { kind: "forbidden"; detail: string }
  | { kind: "invalid"; violations: FieldViolation[] };

const NOT_ON_TEAM = "Creating a project needs the developer role or above on its team.";

function inputFields(p: ProjectInput | undefined) {
  return {
    name: p?.name ?? "",
    slug: p?.slug ?? "",
    teamId: p?.teamId ?? "",
    description: p?.description,
    defaultBranch: p?.defaultBranch,
    gitUrl: p?.gitUrl,
    visibility: p?.visibility,
    businessUnit: p?.businessUnit,
    declaredLicense: p?.declaredLicense,
    distributionModel: p?.distributionModel,
    aiUsageContext: p?.aiUsageContext,
    ownerContact: p?.ownerContact,
  };
}

/** One project: the role on its team, the team in the directory, then the insert with its events. */
async function createOne(
  deps: ProjectServiceDeps,
  caller: Caller,
  plan: NewProjectPlan,
  names: DirectoryNames,
  prefix: string,
): Promise<Outcome> {
  if (!mayCreate(caller, plan.teamId)) return { kind: "forbidden", detail: NOT_ON_TEAM };
  const team = names.teams.get(plan.teamId);
  if (!team) return { kind: "invalid", violations: [{ path: `${prefix}.team_id`, message: "does not name a team" }] };
  const now = new Date();
  const outcome = await deps.orm.em.fork().transactional(async (em): Promise<Outcome> => {
    const row = await insertProject(em, {
      ...plan,
      organizationId: team.organizationId ?? null,
      createdByUserId: caller.user_id,
    });
    if (!row) {
      const existing = await activeProjectBySlug(em, plan.teamId, plan.slug);
      // Archived in between: the slug is free again, and the caller may simply retry.
      if (!existing)
        return {
          kind: "invalid",
          violations: [{ path: `${prefix}.slug`, message: "was taken and released meanwhile; retry" }],
        };
      return { kind: "exists", row: existing };
    }
    emitProjectCreated(em, row, now);
    emitAudit(em, {
      action: "project.created",
      actor: callerActor(caller),
      targetId: row.id,
      teamId: row.teamId,
      organizationId: row.organizationId,
      outcome: "success",
      details: { slug: row.slug },
      at: now,
    });
    return { kind: "created", row };
  });
  if (outcome.kind === "created") deps.wakeRelay();
  return outcome;
}

export function projectCreationHandlers(
  deps: ProjectServiceDeps,
): ProjectHandlers<"createProject" | "batchCreateProjects"> {
  return {
    async createProject(req: CreateProjectRequest, ctx: HandlerContext) {
      const caller = requireCaller(ctx);
      const planned = planNewProject(inputFields(req.project));
      if (!planned.ok) throw ProblemError.validation(planned.violations);
      const plan = planned.plan;
      // Refused before the directory is asked, so an outsider learns nothing about the team id.
      if (!mayCreate(caller, plan.teamId)) throw ProblemError.forbidden(NOT_ON_TEAM);
      const names = await deps.directory.names(caller, [plan.teamId], [caller.user_id]);
      const outcome = await createOne(deps, caller, plan, names, "body");
      switch (outcome.kind) {
        case "created":
          return create(CreateProjectResponseSchema, { project: projectView(outcome.row, names) });
        case "exists":
          throw new ProblemError({
            status: 409,
            code: "project_slug_taken",
            detail: `The team already has a project with the slug '${plan.slug}'.`,
            extensions: { project_id: outcome.row.id },
          });
        case "forbidden":
          throw ProblemError.forbidden(outcome.detail);
        case "invalid":
          throw ProblemError.validation(outcome.violations);
      }
    },

    async batchCreateProjects(req: BatchCreateProjectsRequest, ctx: HandlerContext) {
      const caller = requireCaller(ctx);
      if (req.projects.length < 1 || req.projects.length > BATCH_MAX_ROWS) {
        throw ProblemError.validation([
          { path: "body.projects", message: `must hold 1 to ${BATCH_MAX_ROWS} projects` },
        ]);
      }
      const plans = req.projects.map((p, index) => planNewProject(inputFields(p), `body.projects[${index}]`));
      // One directory call for every team the caller may create in.
      const teamIds = plans.flatMap((p) => (p.ok && mayCreate(caller, p.plan.teamId) ? [p.plan.teamId] : []));
      const names = await deps.directory.names(caller, teamIds, []);
      const rows: BatchRowOutcome[] = [];
      for (const [index, planned] of plans.entries()) {
        const outcome: Outcome = planned.ok
          ? await createOne(deps, caller, planned.plan, names, `body.projects[${index}]`)
          : { kind: "invalid", violations: planned.violations };
        rows.push(rowOf(index, outcome));
      }
      const t = summarizeBatch(rows);
      return create(BatchCreateProjectsResponseSchema, {
        allSucceeded: t.allSucceeded,
        total: t.total,
        created: t.created,
        alreadyExisted: t.alreadyExisted,
        failed: t.failed,
        failedByStatus: t.failedByStatus,
        rows: rows.map((r) =>
          create(BatchRowSchema, {
            index: r.index,
            status: r.status,
            ...(r.projectId ? { projectId: r.projectId } : {}),
            ...(r.detail ? { detail: r.detail } : {}),
          }),
        ),
      });
    },
  };
}

function rowOf(index: number, outcome: Outcome): BatchRowOutcome {
  switch (outcome.kind) {
    case "created":
      return { index, status: "created", projectId: outcome.row.id };
    case "exists":
      return {
        index,
        status: "already_exists",
        projectId: outcome.row.id,
        detail: `The team already has a project with the slug '${outcome.row.slug}'.`,
      };
    case "forbidden":
      return { index, status: "forbidden", detail: outcome.detail };
    case "invalid":
      return { index, status: "invalid", detail: outcome.violations.map((v) => `${v.path} ${v.message}`).join("; ") };
  }
}
