// GatePolicyService: the team and organization-default gate policies, the policy in effect for a project, and the
// gate verdict (docs/gate.md). A change runs in one transaction on the locked row with its audit event (through the
// outbox); an upsert that changes nothing writes and emits nothing.
import { randomUUID } from "node:crypto";
import { isDeepStrictEqual } from "node:util";
import { create } from "@bufbuild/protobuf";
import type { ConnectRouter } from "@connectrpc/connect";
import { UniqueConstraintViolationException } from "@mikro-orm/core";
import type { EntityManager, MikroORM } from "@mikro-orm/postgresql";
import { callerActor } from "@sca/audit";
import { ProblemError } from "@sca/problem";
import {
  DeleteTeamGatePolicyResponseSchema,
  GatePolicyService,
  GetEffectiveGatePolicyResponseSchema,
  GetGateResultResponseSchema,
  GetTeamGatePolicyResponseSchema,
  PutOrganizationGatePolicyResponseSchema,
  PutTeamGatePolicyResponseSchema,
  type GatePolicyFields,
} from "@sca/proto/sca/policy/v1/gate_policies_pb.ts";
import { requireCaller, requirePerson, requireSuperAdmin, type Caller, type Person } from "@sca/rpc";
import type { Directory, TeamPlacement } from "../clients/directory.ts";
import type { GateSubject, ProjectGateFacts } from "../clients/gate-facts.ts";
import { effectiveGateValues, planGatePolicy, type GateDeployment } from "../domain/gate-policy.ts";
import { gateVerdict } from "../domain/gate-verdict.ts";
import { mayReadTeamPolicy, mayWriteTeamPolicy, type TeamDecision } from "../domain/policy-access.ts";
import { emitAudit, emitGatePolicyChanged } from "../events/policy-events.ts";
import {
  columnsOfSettings,
  deleteGatePolicy,
  findGatePolicy,
  gatePoliciesFor,
  insertGatePolicy,
  lockGatePolicy,
  settingsOf,
  updateGatePolicy,
  type GatePolicyColumns,
  type GatePolicyRow,
} from "../store/gate-policies.ts";
import type { PolicyScope } from "../store/license-policies.ts";
import {
  effectiveGatePolicyView,
  gateFactsOf,
  gatePolicyInputOf,
  gatePolicyView,
  gateResultView,
} from "./gate-policy-views.ts";

export interface GatePolicyDeps {
  orm: MikroORM;
  directory: Directory;
  projects: ProjectGateFacts;
  deployment: GateDeployment;
  /** Publishes the events a change just committed without waiting for the relay's next poll. */
  wakeRelay(): void;
}

/** How many offending items each reason lists (the counts are always whole). */
export const GATE_ITEM_LIMIT = 20;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const noSuchTeam = () => ProblemError.notFound("No such team, or you are not a member of it.");
const noSuchProject = () => ProblemError.notFound("No such project.");
const TARGET_TABLE = "gate_policies";

function enforce(decision: TeamDecision, refusal: string): void {
  if (decision === "not_found") throw noSuchTeam();
  if (decision === "forbidden") throw ProblemError.forbidden(refusal);
}

async function teamFor(
  deps: GatePolicyDeps,
  caller: Person,
  teamId: string,
  decide: (c: Person, teamId: string) => TeamDecision,
  refusal: string,
): Promise<TeamPlacement & { organizationId: string }> {
  if (!UUID.test(teamId)) throw noSuchTeam();
  const id = teamId.toLowerCase();
  enforce(decide(caller, id), refusal);
  const team = await deps.directory.team(caller, id);
  // A gate policy hangs under an organization; a team outside any has none to fall back to and cannot hold one.
  if (!team?.organizationId) throw noSuchTeam();
  return { id: team.id, organizationId: team.organizationId };
}

function planned(fields: GatePolicyFields | undefined): GatePolicyColumns {
  const plan = planGatePolicy(gatePolicyInputOf(fields));
  if (!plan.ok) throw ProblemError.validation(plan.violations);
  return columnsOfSettings(plan.name, plan.settings);
}

const COLUMN_NAMES: Record<keyof GatePolicyColumns, string> = {
  name: "name",
  approvalRequiredStatuses: "approval_required_statuses",
  epssThreshold: "epss_threshold",
  epssThresholdSet: "epss_threshold",
  maliciousBlocks: "malicious_blocks",
  reachableCriticalOnly: "reachable_critical_only",
};

function changedFields(row: GatePolicyRow, columns: GatePolicyColumns): string[] {
  const names = (Object.keys(COLUMN_NAMES) as (keyof GatePolicyColumns)[])
    .filter((k) => !isDeepStrictEqual(row[k], columns[k]))
    .map((k) => COLUMN_NAMES[k]);
  return [...new Set(names)];
}

async function upsert(
  deps: GatePolicyDeps,
  caller: Person,
  scope: PolicyScope,
  organizationId: string,
  columns: GatePolicyColumns,
): Promise<{ row: GatePolicyRow; created: boolean }> {
  const attempt = () =>
    deps.orm.em.fork().transactional(async (em: EntityManager) => {
      const now = new Date();
      const current = await lockGatePolicy(em, scope);
      const teamId = scope.kind === "team" ? scope.teamId : null;
      const audit = (action: string, details: Record<string, string>, targetId: string) =>
        emitAudit(em, {
          action,
          actor: callerActor(caller),
          targetTable: TARGET_TABLE,
          targetId,
          teamId,
          organizationId,
          outcome: "success",
          at: now,
          details: { scope: scope.kind, ...details },
        });
      if (!current) {
        const row = await insertGatePolicy(em, {
          id: randomUUID(),
          organizationId,
          teamId,
          ...columns,
          createdByUserId: caller.user_id,
          updatedByUserId: caller.user_id,
          createdAt: now,
        });
        audit("gate_policy.created", { fields: Object.keys(settingsOf(row)).join(",") }, row.id);
        emitGatePolicyChanged(em, row, { organizationId, teamId }, now);
        return { row, created: true };
      }
      const fields = changedFields(current, columns);
      if (fields.length === 0 && current.organizationId === organizationId) return { row: current, created: false };
      const row = await updateGatePolicy(em, current, {
        ...columns,
        organizationId,
        updatedByUserId: caller.user_id,
        updatedAt: now,
      });
      audit("gate_policy.updated", { fields: fields.join(",") }, row.id);
      emitGatePolicyChanged(em, row, { organizationId, teamId }, now);
      return { row, created: false };
    });
  let answer;
  try {
    answer = await attempt();
  } catch (err) {
    if (!(err instanceof UniqueConstraintViolationException)) throw err;
    answer = await attempt();
  }
  deps.wakeRelay();
  return answer;
}

/** The project (as the caller may read it), its team's and organization's policies, and the values in effect. */
async function effectiveFor(deps: GatePolicyDeps, caller: Caller, projectId: string) {
  if (!UUID.test(projectId)) throw noSuchProject();
  const subject: GateSubject = await deps.projects.subject(caller, projectId.toLowerCase());
  const { team, organization } = await gatePoliciesFor(deps.orm.em.fork(), subject.teamId, subject.organizationId);
  const values = effectiveGateValues(
    team && settingsOf(team),
    organization && settingsOf(organization),
    deps.deployment,
  );
  const view = effectiveGatePolicyView(subject, team ?? organization, values, deps.deployment);
  return { subject, values, view };
}

export function registerGatePolicyService(router: ConnectRouter, deps: GatePolicyDeps): void {
  router.service(GatePolicyService, {
    async putTeamGatePolicy(req, ctx) {
      const caller = requirePerson(ctx);
      const team = await teamFor(
        deps,
        caller,
        req.teamId,
        mayWriteTeamPolicy,
        "Changing a team's gate policy needs the team_admin role on the team.",
      );
      const { row, created } = await upsert(
        deps,
        caller,
        { kind: "team", teamId: team.id },
        team.organizationId,
        planned(req.policy),
      );
      return create(PutTeamGatePolicyResponseSchema, { policy: gatePolicyView(row), created });
    },

    async getTeamGatePolicy(req, ctx) {
      const caller = requirePerson(ctx);
      if (!UUID.test(req.teamId)) throw noSuchTeam();
      enforce(mayReadTeamPolicy(caller, req.teamId.toLowerCase()), "");
      const row = await findGatePolicy(deps.orm.em.fork(), { kind: "team", teamId: req.teamId.toLowerCase() });
      if (!row) throw ProblemError.notFound("The team has no gate policy of its own: its organization's applies.");
      return create(GetTeamGatePolicyResponseSchema, { policy: gatePolicyView(row) });
    },

    async deleteTeamGatePolicy(req, ctx) {
      const caller = requirePerson(ctx);
      const team = await teamFor(
        deps,
        caller,
        req.teamId,
        mayWriteTeamPolicy,
        "Deleting a team's gate policy needs the team_admin role on the team.",
      );
      const deleted = await deps.orm.em.fork().transactional(async (em) => {
        const current = await lockGatePolicy(em, { kind: "team", teamId: team.id });
        if (!current) return false;
        await deleteGatePolicy(em, current.id);
        const at = new Date();
        emitGatePolicyChanged(em, null, { organizationId: team.organizationId, teamId: team.id }, at);
        emitAudit(em, {
          action: "gate_policy.deleted",
          actor: callerActor(caller),
          targetTable: TARGET_TABLE,
          targetId: current.id,
          teamId: team.id,
          organizationId: team.organizationId,
          outcome: "success",
          at,
          details: { scope: "team" },
        });
        return true;
      });
      if (deleted) deps.wakeRelay();
      return create(DeleteTeamGatePolicyResponseSchema, { deleted });
    },

    async putOrganizationGatePolicy(req, ctx) {
      const caller = requireSuperAdmin(ctx);
      if (!UUID.test(req.organizationId)) throw ProblemError.notFound();
      const organizationId = req.organizationId.toLowerCase();
      const { row, created } = await upsert(
        deps,
        caller,
        { kind: "organization", organizationId },
        organizationId,
        planned(req.policy),
      );
      return create(PutOrganizationGatePolicyResponseSchema, { policy: gatePolicyView(row), created });
    },

    async getEffectiveGatePolicy(req, ctx) {
      const { view } = await effectiveFor(deps, requireCaller(ctx), req.projectId);
      return create(GetEffectiveGatePolicyResponseSchema, { policy: view });
    },

    async getGateResult(req, ctx) {
      const caller = requireCaller(ctx);
      const { subject, values, view } = await effectiveFor(deps, caller, req.projectId);
      const answer = await deps.projects.facts(caller, subject.projectId, {
        epssThreshold: values.epss_threshold,
        reachableCriticalOnly: values.reachable_critical_only,
        itemLimit: GATE_ITEM_LIMIT,
      });
      const facts = gateFactsOf(answer);
      const verdict = gateVerdict(facts, values, deps.deployment);
      return create(GetGateResultResponseSchema, {
        result: gateResultView(answer, facts, verdict, view, values, new Date()),
      });
    },
  });
}
