// OrganizationVerdictService: start, move and list an organization's rulings on components, and the view of a
// ruling from one of its projects (docs/approvals.md, "Organization verdicts"). Every start and move is audited; the
// audit carries which fields changed, never the deliberation itself.
import { randomUUID } from "node:crypto";
import { create } from "@bufbuild/protobuf";
import type { ConnectRouter } from "@connectrpc/connect";
import { UniqueConstraintViolationException } from "@mikro-orm/core";
import type { EntityManager, MikroORM } from "@mikro-orm/postgresql";
import { callerActor } from "@sca/audit";
import { NUMBERED_PAGE_SIZE, pageInfo, pageOf } from "@sca/paging";
import { ProblemError, type FieldViolation } from "@sca/problem";
import {
  GetProjectVerdictResponseSchema,
  ListVerdictsResponseSchema,
  MoveVerdictResponseSchema,
  OrganizationVerdictService,
  ProjectVerdictSchema,
  StartVerdictResponseSchema,
} from "@sca/proto/sca/policy/v1/organization_verdicts_pb.ts";
import { requirePerson, type Person } from "@sca/rpc";
import type { Projects } from "../clients/projects.ts";
import { verdictReach, type VerdictReach } from "../domain/approval-access.ts";
import { DECISION_NOTE_MAX } from "../domain/approval-state-machine.ts";
import {
  isVerdictStatus,
  justificationProblem,
  moveVerdict,
  VERDICT_INITIAL,
  VERDICT_STATUSES,
  type VerdictStatus,
} from "../domain/verdict-state-machine.ts";
import { emitAudit } from "../events/policy-events.ts";
import {
  findVerdictOf,
  insertVerdict,
  listVerdicts,
  lockVerdict,
  updateVerdict,
  type OrganizationVerdictRow,
} from "../store/organization-verdicts.ts";
import { verdictView } from "./approval-views.ts";
import { UUID } from "@sca/ids";

export interface OrganizationVerdictDeps {
  orm: MikroORM;
  projects: Projects;
  wakeRelay(): void;
}

const noSuchOrganization = () => ProblemError.notFound("No such organization, or you are not a member of it.");

/** The organization the request names and how far the caller reaches into it; 404 for outsiders. */
function organizationFor(caller: Person, organizationId: string): { id: string; reach: VerdictReach } {
  if (!UUID.test(organizationId)) throw noSuchOrganization();
  const id = organizationId.toLowerCase();
  const reach = verdictReach(caller, id);
  if (reach === "none") throw noSuchOrganization();
  return { id, reach };
}

function requireWriter(reach: VerdictReach): void {
  if (reach !== "writer")
    throw ProblemError.forbidden(
      "Organization verdicts are written by a super_admin or a group_admin of the organization.",
    );
}

function audit(em: EntityManager, caller: Person, action: string, row: OrganizationVerdictRow, at: Date, details = {}) {
  emitAudit(em, {
    action,
    actor: callerActor(caller),
    targetTable: "organization_verdicts",
    targetId: row.id,
    organizationId: row.organizationId,
    outcome: "success",
    at,
    details: { component_id: row.componentId, status: row.status, ...details },
  });
}

export function registerOrganizationVerdictService(router: ConnectRouter, deps: OrganizationVerdictDeps): void {
  router.service(OrganizationVerdictService, {
    async startVerdict(req, ctx) {
      const caller = requirePerson(ctx);
      const organization = organizationFor(caller, req.organizationId);
      requireWriter(organization.reach);
      const v: FieldViolation[] = [];
      if (!UUID.test(req.componentId)) v.push({ path: "component_id", message: "a UUID" });
      const problem = justificationProblem(req.justification);
      if (problem) v.push({ path: "justification", message: problem });
      if (v.length > 0) throw ProblemError.validation(v);
      const now = new Date();
      const row: OrganizationVerdictRow = {
        id: randomUUID(),
        organizationId: organization.id,
        componentId: req.componentId.toLowerCase(),
        justification: req.justification.trim(),
        status: VERDICT_INITIAL,
        version: 1,
        requestedByUserId: caller.user_id,
        decidedByUserId: null,
        decidedAt: null,
        decisionNote: null,
        createdAt: now,
        updatedAt: now,
      };
      try {
        await deps.orm.em.fork().transactional(async (em) => {
          await insertVerdict(em, row);
          audit(em, caller, "organization_verdict.started", row, now);
        });
      } catch (err) {
        if (!(err instanceof UniqueConstraintViolationException)) throw err;
        const existing = await findVerdictOf(deps.orm.em.fork(), row.organizationId, row.componentId);
        throw new ProblemError({
          status: 409,
          code: "verdict_exists",
          detail: "The organization already has a ruling on this component: move it instead.",
          extensions: { verdict_id: existing?.id ?? null },
        });
      }
      deps.wakeRelay();
      return create(StartVerdictResponseSchema, { verdict: verdictView(row, "writer") });
    },

    async moveVerdict(req, ctx) {
      const caller = requirePerson(ctx);
      const organization = organizationFor(caller, req.organizationId);
      const notFound = () => ProblemError.notFound("No such ruling in this organization.");
      if (!UUID.test(req.verdictId)) throw notFound();
      requireWriter(organization.reach);
      const v: FieldViolation[] = [];
      if (!isVerdictStatus(req.status)) v.push({ path: "status", message: `one of ${VERDICT_STATUSES.join(", ")}` });
      if (req.note !== undefined && req.note.length > DECISION_NOTE_MAX)
        v.push({ path: "note", message: `at most ${DECISION_NOTE_MAX} characters` });
      if (v.length > 0) throw ProblemError.validation(v);
      const row = await deps.orm.em.fork().transactional(async (em) => {
        const current = await lockVerdict(em, organization.id, req.verdictId.toLowerCase());
        if (!current) throw notFound();
        if (req.expectedVersion !== undefined && req.expectedVersion !== current.version)
          throw new ProblemError({
            status: 412,
            code: "version_mismatch",
            detail: `If-Match names version ${req.expectedVersion}; the ruling is at version ${current.version}.`,
            extensions: { current_version: current.version },
            headers: { ETag: `"${current.version}"` },
          });
        const from = current.status as VerdictStatus;
        const move = moveVerdict(from, req.status as VerdictStatus);
        if (!move.ok)
          throw new ProblemError({
            status: 409,
            code: "verdict_move_not_allowed",
            detail: `The ruling is already ${from}.`,
            extensions: { current_status: from, allowed: [...move.allowed] },
          });
        const now = new Date();
        const next = await updateVerdict(em, current.id, {
          status: move.to,
          version: current.version + 1,
          updatedAt: now,
          // Reopening clears the decision; the note of a move is the deliberation of that move.
          decidedByUserId: move.decides ? caller.user_id : null,
          decidedAt: move.decides ? now : null,
          ...(req.note !== undefined ? { decisionNote: req.note } : {}),
        });
        audit(em, caller, "organization_verdict.moved", next, now, {
          from,
          note_changed: String(req.note !== undefined),
        });
        return next;
      });
      deps.wakeRelay();
      return create(MoveVerdictResponseSchema, { verdict: verdictView(row, "writer") });
    },

    async listVerdicts(req, ctx) {
      const caller = requirePerson(ctx);
      const organization = organizationFor(caller, req.organizationId);
      const page = pageOf(req.page, NUMBERED_PAGE_SIZE);
      const statuses = [...new Set(req.status)];
      if (statuses.some((s) => !isVerdictStatus(s)))
        throw ProblemError.validation([{ path: "status", message: `one of ${VERDICT_STATUSES.join(", ")}` }]);
      const { rows, total } = await listVerdicts(deps.orm.em.fork(), organization.id, statuses, page);
      return create(ListVerdictsResponseSchema, {
        items: rows.map((r) => verdictView(r, organization.reach)),
        page: pageInfo(page, total),
      });
    },

    async getProjectVerdict(req, ctx) {
      const caller = requirePerson(ctx);
      const notFound = () =>
        ProblemError.notFound("No such project, or its organization has no ruling on the component.");
      if (!UUID.test(req.projectId) || !UUID.test(req.componentId)) throw notFound();
      const project = await deps.projects.project(caller, req.projectId.toLowerCase());
      if (!project?.organizationId) throw notFound();
      const row = await findVerdictOf(deps.orm.em.fork(), project.organizationId, req.componentId.toLowerCase());
      if (!row) throw notFound();
      return create(GetProjectVerdictResponseSchema, {
        verdict: create(ProjectVerdictSchema, {
          componentId: row.componentId,
          projectId: project.id,
          scope: "organization",
          status: row.status,
          justification: row.justification,
        }),
      });
    },
  });
}
