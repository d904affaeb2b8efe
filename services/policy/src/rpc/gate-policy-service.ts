// GatePolicyService: the team and organization-default gate policies, the policy in effect for a project, and the
// gate verdict (docs/gate.md). A change runs in one transaction on the locked row with its audit event (through the
// outbox); an upsert that changes nothing writes and emits nothing.
import { create } from "@bufbuild/protobuf";
import type { ConnectRouter } from "@connectrpc/connect";
import { ProblemError } from "@sca/problem";
import {
  DeleteTeamGatePolicyResponseSchema,
  GatePolicyService,
  GetEffectiveGatePolicyResponseSchema,
  GetGateResultResponseSchema,
  JudgeGateFiguresResponseSchema,
  GetTeamGatePolicyResponseSchema,
  PutOrganizationGatePolicyResponseSchema,
  PutTeamGatePolicyResponseSchema,
  type GatePolicyFields,
} from "@sca/proto/sca/policy/v1/gate_policies_pb.ts";
import { requireCaller, requirePerson, requireService, requireSuperAdmin, type Caller, type Person } from "@sca/rpc";
import type { Directory } from "../clients/directory.ts";
import { subjectOfFacts, type GateFactsQuery, type ProjectGateFacts } from "../clients/gate-facts.ts";
import type { GateSubject } from "../clients/gate-subject-hints.ts";
import { sameSubject } from "../clients/gate-subject-hints.ts";
import {
  effectiveGateValues,
  planGatePolicy,
  type EffectiveGateValues,
  type GateDeployment,
} from "../domain/gate-policy.ts";
import { gateFactsOfFigures, gateVerdict } from "../domain/gate-verdict.ts";
import { mayReadTeamPolicy, mayWriteTeamPolicy, type TeamDecision } from "../domain/policy-access.ts";
import { changedFieldNames } from "../domain/policy-changes.ts";
import { emitGatePolicyChanged } from "../events/policy-events.ts";
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
import {
  effectiveGatePolicyView,
  gateFactsOf,
  gatePolicyInputOf,
  gatePolicyView,
  gateResultView,
} from "./gate-policy-views.ts";
import {
  deleteTeamPolicy,
  enforce,
  noSuchTeam,
  teamFor,
  upsertScopedPolicy,
  type ScopedPolicyDeps,
  type ScopedPolicyKind,
} from "./scoped-policy-writes.ts";
import { UUID } from "@sca/ids";

export interface GatePolicyDeps extends ScopedPolicyDeps {
  directory: Directory;
  projects: ProjectGateFacts;
  deployment: GateDeployment;
}

/** How many offending items each reason lists (the counts are always whole). */
export const GATE_ITEM_LIMIT = 20;

/** How many projects one JudgeGateFigures call may carry (the dashboards' daily job sends batches of this). */
export const JUDGE_FIGURES_MAX = 1_000;

const uuidOrUnset = (id: string | undefined) => !id || UUID.test(id);

const noSuchProject = () => ProblemError.notFound("No such project.");

/** The team the request names, in an organization: a gate policy hangs under one (a team outside any has none). */
async function teamInOrganization(
  deps: GatePolicyDeps,
  caller: Person,
  teamId: string,
  decide: (c: Person, teamId: string) => TeamDecision,
  refusal: string,
): Promise<{ id: string; organizationId: string }> {
  const team = await teamFor(deps.directory, caller, teamId, decide, refusal);
  if (!team.organizationId) throw noSuchTeam();
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

const GATE_POLICIES: ScopedPolicyKind<GatePolicyRow, GatePolicyColumns, string> = {
  targetTable: "gate_policies",
  action: "gate_policy",
  lock: lockGatePolicy,
  insert: insertGatePolicy,
  update: updateGatePolicy,
  remove: deleteGatePolicy,
  changedFields: (current, columns) => changedFieldNames(current, columns, COLUMN_NAMES),
  createdDetails: (row) => ({ fields: Object.keys(settingsOf(row)).join(",") }),
  updatedDetails: (_row, fields) => ({ fields: fields.join(",") }),
  emitChanged: emitGatePolicyChanged,
};

/** The project (as the caller may read it), its team's and organization's policies, and the values in effect. */
async function effectiveFor(deps: GatePolicyDeps, caller: Caller, projectId: string) {
  if (!UUID.test(projectId)) throw noSuchProject();
  return effectiveOf(deps, await deps.projects.subject(caller, projectId.toLowerCase()));
}

/** The subject's team and organization policies and the values in effect. */
async function effectiveOf(deps: GatePolicyDeps, subject: GateSubject) {
  const { team, organization } = await gatePoliciesFor(deps.orm.em.fork(), subject.teamId, subject.organizationId);
  const values = effectiveGateValues(
    team && settingsOf(team),
    organization && settingsOf(organization),
    deps.deployment,
  );
  const view = effectiveGatePolicyView(subject, team ?? organization, values, deps.deployment);
  return { subject, values, view };
}

function factsQueryOf(values: EffectiveGateValues): GateFactsQuery {
  return {
    epssThreshold: values.epss_threshold,
    reachableCriticalOnly: values.reachable_critical_only,
    itemLimit: GATE_ITEM_LIMIT,
  };
}

export function registerGatePolicyService(router: ConnectRouter, deps: GatePolicyDeps): void {
  router.service(GatePolicyService, {
    async putTeamGatePolicy(req, ctx) {
      const caller = requirePerson(ctx);
      const team = await teamInOrganization(
        deps,
        caller,
        req.teamId,
        mayWriteTeamPolicy,
        "Changing a team's gate policy needs the team_admin role on the team.",
      );
      const { row, created } = await upsertScopedPolicy(
        deps,
        GATE_POLICIES,
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
      const team = await teamInOrganization(
        deps,
        caller,
        req.teamId,
        mayWriteTeamPolicy,
        "Deleting a team's gate policy needs the team_admin role on the team.",
      );
      const deleted = await deleteTeamPolicy(deps, GATE_POLICIES, caller, team);
      return create(DeleteTeamGatePolicyResponseSchema, { deleted });
    },

    async putOrganizationGatePolicy(req, ctx) {
      const caller = requireSuperAdmin(ctx);
      if (!UUID.test(req.organizationId)) throw ProblemError.notFound();
      const organizationId = req.organizationId.toLowerCase();
      const { row, created } = await upsertScopedPolicy(
        deps,
        GATE_POLICIES,
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
      if (!UUID.test(req.projectId)) throw noSuchProject();
      const projectId = req.projectId.toLowerCase();
      // One projects call when the project's team is known from an earlier answer: its policies are read first
      // and the facts answer with the project's subject now. Projects still decides who may read the project.
      const hinted = deps.projects.hintedSubject(projectId);
      let effective = await effectiveOf(deps, hinted ?? (await deps.projects.subject(caller, projectId)));
      let answer = await deps.projects.facts(caller, projectId, factsQueryOf(effective.values));
      const actual = subjectOfFacts(projectId, answer);
      if (actual && !sameSubject(actual, effective.subject)) {
        // The project moved to another team or organization meanwhile: its policies now, and the facts again when
        // they ask for another threshold.
        const asked = factsQueryOf(effective.values);
        effective = await effectiveOf(deps, actual);
        const query = factsQueryOf(effective.values);
        if (query.epssThreshold !== asked.epssThreshold || query.reachableCriticalOnly !== asked.reachableCriticalOnly)
          answer = await deps.projects.facts(caller, projectId, query);
      }
      const { values, view } = effective;
      const facts = gateFactsOf(answer);
      const verdict = gateVerdict(facts, values, deps.deployment);
      return create(GetGateResultResponseSchema, {
        result: gateResultView(answer, facts, verdict, view, values, new Date()),
      });
    },

    async judgeGateFigures(req, ctx) {
      requireService(ctx, "projects");
      if (req.projects.length > JUDGE_FIGURES_MAX)
        throw ProblemError.validation([{ path: "projects", message: `at most ${JUDGE_FIGURES_MAX} per call` }]);
      if (req.projects.some((p) => !UUID.test(p.projectId) || !UUID.test(p.teamId) || !uuidOrUnset(p.organizationId)))
        throw ProblemError.validation([{ path: "projects", message: "project, team and organization ids are UUIDs" }]);
      // The policies are read once per team and organization, one after the other (a bounded pool), not per project.
      const valuesOf = new Map<string, EffectiveGateValues>();
      const judged = [];
      for (const p of req.projects) {
        const subject = {
          projectId: p.projectId.toLowerCase(),
          teamId: p.teamId.toLowerCase(),
          organizationId: p.organizationId?.toLowerCase() || null,
        };
        const key = `${subject.teamId}/${subject.organizationId}`;
        let values = valuesOf.get(key);
        if (!values) valuesOf.set(key, (values = (await effectiveOf(deps, subject)).values));
        const facts = gateFactsOfFigures({ ...p, epssMax: p.epssMax ?? null }, values.epss_threshold);
        judged.push({ projectId: subject.projectId, outcome: gateVerdict(facts, values, deps.deployment).outcome });
      }
      return create(JudgeGateFiguresResponseSchema, { projects: judged });
    },
  });
}
