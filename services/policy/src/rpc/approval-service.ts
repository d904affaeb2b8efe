// ApprovalService: create, list, get, transition and delete approval requests (docs/approvals.md). A transition runs
// in one transaction on the locked row: the version check first (so of two concurrent transitions from the same
// version one wins and the other gets 412), then the state machine, then the write with its audit event and, for a
// decision, ApprovalDecided.
import { randomUUID } from "node:crypto";
import { create } from "@bufbuild/protobuf";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter } from "@connectrpc/connect";
import type { EntityManager, MikroORM } from "@mikro-orm/postgresql";
import { callerActor } from "@sca/audit";
import { NUMBERED_PAGE_SIZE, pageInfo, pageOf } from "@sca/paging";
import { ProblemError, type FieldViolation } from "@sca/problem";
import {
  ApprovalService,
  CreateApprovalResponseSchema,
  DeleteApprovalResponseSchema,
  GetApprovalResponseSchema,
  ListApprovalsResponseSchema,
  TransitionApprovalResponseSchema,
} from "@sca/proto/sca/policy/v1/approvals_pb.ts";
import { requirePerson, type Person } from "@sca/rpc";
import type { Directory } from "../clients/directory.ts";
import type { Projects } from "../clients/projects.ts";
import {
  approvalListScope,
  mayDecideApproval,
  mayDeleteApproval,
  mayReadTeamApprovals,
  type Decision,
} from "../domain/approval-access.ts";
import {
  ApprovalStateMachine,
  APPROVAL_ACTIONS,
  APPROVAL_STATUSES,
  DECISION_NOTE_MAX,
  isApprovalAction,
  isApprovalStatus,
} from "../domain/approval-state-machine.ts";
import { emitApprovalDecided, emitApprovalRequested } from "../events/approval-events.ts";
import { emitAudit } from "../events/policy-events.ts";
import {
  deleteApproval,
  findApproval,
  insertApproval,
  listApprovals,
  lockApproval,
  updateApproval,
  type ApprovalRequestRow,
} from "../store/approvals.ts";
import { approvalView } from "./approval-views.ts";
import { UUID } from "@sca/ids";

export interface ApprovalDeps {
  orm: MikroORM;
  directory: Directory;
  projects: Projects;
  /** Publishes the events a change just committed without waiting for the relay's next poll. */
  wakeRelay(): void;
}

const noSuchApproval = () => ProblemError.notFound("No such approval request, or it is not of your teams.");

function enforce(decision: Decision, refusal: string): void {
  if (decision === "not_found") throw noSuchApproval();
  if (decision === "forbidden") throw ProblemError.forbidden(refusal);
}

/** The request, when the caller may read it (a member of its team, or a super_admin); else 404. */
async function readable(em: EntityManager, caller: Person, approvalId: string): Promise<ApprovalRequestRow> {
  if (!UUID.test(approvalId)) throw noSuchApproval();
  const row = await findApproval(em, approvalId.toLowerCase());
  if (!row || mayReadTeamApprovals(caller, row.teamId) !== "allow") throw noSuchApproval();
  return row;
}

function audit(em: EntityManager, caller: Person, action: string, row: ApprovalRequestRow, at: Date, details = {}) {
  emitAudit(em, {
    action,
    actor: callerActor(caller),
    targetTable: "approval_requests",
    targetId: row.id,
    teamId: row.teamId,
    organizationId: row.organizationId,
    outcome: "success",
    at,
    details: { project_id: row.projectId, component_id: row.componentId, ...details },
  });
}

function optionalUuid(value: string | undefined, path: string, v: FieldViolation[]): string | null {
  if (value === undefined || value === "") return null;
  if (!UUID.test(value)) {
    v.push({ path, message: "a UUID" });
    return null;
  }
  return value.toLowerCase();
}

export function registerApprovalService(router: ConnectRouter, deps: ApprovalDeps): void {
  const names = (caller: Person, rows: ApprovalRequestRow[]) =>
    deps.directory.userNames(
      caller,
      rows.map((r) => r.requestedByUserId),
    );

  router.service(ApprovalService, {
    async createApproval(req, ctx) {
      const caller = requirePerson(ctx);
      const v: FieldViolation[] = [];
      if (!UUID.test(req.projectId)) v.push({ path: "project_id", message: "a UUID" });
      if (!UUID.test(req.componentId)) v.push({ path: "component_id", message: "a UUID" });
      if (v.length > 0) throw ProblemError.validation(v);
      const project = await deps.projects.project(caller, req.projectId.toLowerCase());
      // Approvals are the team's: a project the caller reads only through organization visibility is not theirs.
      if (!project || mayReadTeamApprovals(caller, project.teamId) !== "allow")
        throw ProblemError.notFound("No such project, or you are not a member of its team.");
      const component = await deps.projects.component(caller, project.id, req.componentId.toLowerCase());
      if (!component) throw ProblemError.notFound("The project's latest inventory has no such component.");
      const now = new Date();
      const row: ApprovalRequestRow = {
        id: randomUUID(),
        projectId: project.id,
        teamId: project.teamId,
        organizationId: project.organizationId,
        projectName: project.name,
        projectSlug: project.slug,
        componentId: component.componentId,
        componentName: component.name,
        componentPurl: component.purl,
        status: ApprovalStateMachine.initial,
        version: 1,
        requestedByUserId: caller.user_id,
        requestedAt: now,
        decidedByUserId: null,
        decidedAt: null,
        decisionNote: null,
        updatedAt: now,
      };
      await deps.orm.em.fork().transactional(async (em) => {
        await insertApproval(em, row);
        audit(em, caller, "approval.requested", row, now);
        emitApprovalRequested(em, row);
      });
      deps.wakeRelay();
      return create(CreateApprovalResponseSchema, { approval: approvalView(row, await names(caller, [row])) });
    },

    async listApprovals(req, ctx) {
      const caller = requirePerson(ctx);
      const page = pageOf(req.page, NUMBERED_PAGE_SIZE);
      const f = req.filter;
      const v: FieldViolation[] = [];
      const statuses = [...new Set(f?.status ?? [])];
      for (const s of statuses)
        if (!isApprovalStatus(s)) v.push({ path: "status", message: `one of ${APPROVAL_STATUSES.join(", ")}` });
      const query = {
        statuses,
        teamId: optionalUuid(f?.teamId, "team_id", v),
        projectId: optionalUuid(f?.projectId, "project_id", v),
        requestedByUserId: optionalUuid(f?.requestedByUserId, "requested_by_user_id", v),
        from: f?.from ? timestampDate(f.from) : null,
        to: f?.to ? timestampDate(f.to) : null,
      };
      if (v.length > 0) throw ProblemError.validation(v.slice(0, 50));
      const { rows, total } = await listApprovals(deps.orm.em.fork(), approvalListScope(caller), query, page);
      const known = await names(caller, rows);
      return create(ListApprovalsResponseSchema, {
        items: rows.map((r) => approvalView(r, known)),
        page: pageInfo(page, total),
      });
    },

    async getApproval(req, ctx) {
      const caller = requirePerson(ctx);
      const row = await readable(deps.orm.em.fork(), caller, req.approvalId);
      return create(GetApprovalResponseSchema, { approval: approvalView(row, await names(caller, [row])) });
    },

    async transitionApproval(req, ctx) {
      const caller = requirePerson(ctx);
      const v: FieldViolation[] = [];
      if (!isApprovalAction(req.action)) v.push({ path: "action", message: `one of ${APPROVAL_ACTIONS.join(", ")}` });
      if (req.decisionNote !== undefined && req.decisionNote.length > DECISION_NOTE_MAX)
        v.push({ path: "decision_note", message: `at most ${DECISION_NOTE_MAX} characters` });
      const known = await readable(deps.orm.em.fork(), caller, req.approvalId);
      if (v.length > 0) throw ProblemError.validation(v);
      enforce(
        mayDecideApproval(caller, known),
        "Deciding an approval request needs the team_admin role on its team, and someone other than its requester.",
      );
      const row = await deps.orm.em.fork().transactional(async (em) => {
        const current = await lockApproval(em, known.id);
        if (!current) throw noSuchApproval();
        if (req.expectedVersion !== current.version)
          throw new ProblemError({
            status: 412,
            code: "version_mismatch",
            detail: `If-Match names version ${req.expectedVersion}; the approval request is at version ${current.version}.`,
            extensions: { current_version: current.version },
            headers: { ETag: `"${current.version}"` },
          });
        const from = current.status as (typeof APPROVAL_STATUSES)[number];
        const move = ApprovalStateMachine.move(from, req.action as (typeof APPROVAL_ACTIONS)[number]);
        if (!move.ok)
          throw new ProblemError({
            status: 409,
            code: "approval_transition_not_allowed",
            detail:
              move.allowed.length === 0
                ? `The approval request is ${from}, which is final.`
                : `An approval request ${from} may take ${move.allowed.join(", ")}, not ${req.action}.`,
            extensions: { current_status: from, allowed_actions: [...move.allowed] },
          });
        const now = new Date();
        const next = await updateApproval(em, current.id, {
          status: move.to,
          version: current.version + 1,
          updatedAt: now,
          ...(move.decides
            ? { decidedByUserId: caller.user_id, decidedAt: now, decisionNote: req.decisionNote ?? null }
            : {}),
        });
        audit(em, caller, move.decides ? `approval.${move.to}` : "approval.under_review", next, now, {
          from,
          to: move.to,
          version: String(next.version),
        });
        if (move.decides) emitApprovalDecided(em, next);
        return next;
      });
      deps.wakeRelay();
      return create(TransitionApprovalResponseSchema, { approval: approvalView(row, await names(caller, [row])) });
    },

    async deleteApproval(req, ctx) {
      const caller = requirePerson(ctx);
      const known = await readable(deps.orm.em.fork(), caller, req.approvalId);
      enforce(
        mayDeleteApproval(caller, known),
        "Deleting an approval request is for its requester, a team_admin of its team, or a super_admin.",
      );
      await deps.orm.em.fork().transactional(async (em) => {
        const current = await lockApproval(em, known.id);
        if (!current) throw noSuchApproval();
        const status = current.status as (typeof APPROVAL_STATUSES)[number];
        if (ApprovalStateMachine.isTerminal(status))
          throw new ProblemError({
            status: 409,
            code: "approval_is_final",
            detail: `The approval request is ${status}: a decided request is kept as the record and is not deleted.`,
            extensions: { current_status: status },
          });
        await deleteApproval(em, current.id);
        audit(em, caller, "approval.deleted", current, new Date(), { status });
      });
      deps.wakeRelay();
      return create(DeleteApprovalResponseSchema, {});
    },
  });
}
