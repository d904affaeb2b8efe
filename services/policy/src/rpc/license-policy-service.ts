// LicensePolicyService: the upserts, reads, delete and list of license policies (docs/license-policies.md). A change
// runs in one transaction on the locked row with its audit event and a LicensePolicyChanged event; an upsert that
// changes nothing writes and emits nothing.
import { randomUUID } from "node:crypto";
import { isDeepStrictEqual } from "node:util";
import { create } from "@bufbuild/protobuf";
import type { ConnectRouter, HandlerContext } from "@connectrpc/connect";
import { UniqueConstraintViolationException } from "@mikro-orm/core";
import type { EntityManager, MikroORM } from "@mikro-orm/postgresql";
import { callerActor } from "@sca/audit";
import { NUMBERED_PAGE_SIZE, pageInfo, pageOf } from "@sca/paging";
import { ProblemError } from "@sca/problem";
import {
  CategoriseLicensesResponseSchema,
  DeleteTeamLicensePolicyResponseSchema,
  GetOrganizationLicensePolicyResponseSchema,
  GetTeamLicensePolicyResponseSchema,
  LicensePolicyService,
  ListLicensePoliciesResponseSchema,
  PutOrganizationLicensePolicyResponseSchema,
  PutTeamLicensePolicyResponseSchema,
  type LicensePolicyFields,
} from "@sca/proto/sca/policy/v1/license_policies_pb.ts";
import { requirePerson, requireService, requireSuperAdmin, type Person } from "@sca/rpc";
import type { Directory, TeamPlacement } from "../clients/directory.ts";
import { categoriseComponents } from "../domain/license-categorisation.ts";
import {
  AI_USAGE_CONTEXTS,
  DISTRIBUTION_MODELS,
  type AiUsageContext,
  type DistributionModel,
} from "../domain/license-catalog.ts";
import {
  CATALOG_ONLY,
  effectivePolicy,
  planLicensePolicy,
  type LicensePolicyFields as PlannedFields,
} from "../domain/license-policy.ts";
import { mayReadTeamPolicy, mayWriteTeamPolicy, policyListScope, type TeamDecision } from "../domain/policy-access.ts";
import { emitAudit, emitLicensePolicyChanged } from "../events/policy-events.ts";
import type { StoredLicenseException } from "../store/entities/license-policy.ts";
import {
  deletePolicy,
  findPolicy,
  insertPolicy,
  listPolicies,
  lockPolicy,
  updatePolicy,
  type LicensePolicyRow,
  type PolicyColumns,
  type PolicyScope,
} from "../store/license-policies.ts";
import { licensePolicyView, policyInputOf, rulesOf } from "./license-policy-views.ts";

export interface LicensePolicyDeps {
  orm: MikroORM;
  directory: Directory;
  /** Publishes the events a change just committed without waiting for the relay's next poll. */
  wakeRelay(): void;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const noSuchTeam = () => ProblemError.notFound("No such team, or you are not a member of it.");

function enforce(decision: TeamDecision, refusal: string): void {
  if (decision === "not_found") throw noSuchTeam();
  if (decision === "forbidden") throw ProblemError.forbidden(refusal);
}

/** The team the request names, after the caller's right to it: 404 for a malformed id, an unknown team, a stranger. */
async function teamFor(
  deps: LicensePolicyDeps,
  caller: Person,
  teamId: string,
  decide: (c: Person, teamId: string) => TeamDecision,
  refusal: string,
): Promise<TeamPlacement> {
  if (!UUID.test(teamId)) throw noSuchTeam();
  const id = teamId.toLowerCase();
  enforce(decide(caller, id), refusal);
  const team = await deps.directory.team(caller, id);
  if (!team) throw noSuchTeam();
  return team;
}

function columnsOf(fields: PlannedFields): PolicyColumns {
  return {
    name: fields.name,
    categoryOverrides: fields.categoryOverrides,
    licenseExceptions: fields.licenseExceptions.map((e): StoredLicenseException => ({
      spdx_id: e.spdxId,
      reason: e.reason,
      expires_at: e.expiresAt ? e.expiresAt.toISOString() : null,
      component_purl: e.componentPurl,
    })),
    unknownLicenseCategory: fields.unknownLicenseCategory,
    compoundOperatorStrategy: fields.compoundOperatorStrategy,
    enabled: fields.enabled,
  };
}

const COLUMN_NAMES: Record<keyof PolicyColumns, string> = {
  name: "name",
  categoryOverrides: "category_overrides",
  licenseExceptions: "license_exceptions",
  unknownLicenseCategory: "unknown_license_category",
  compoundOperatorStrategy: "compound_operator_strategy",
  enabled: "enabled",
};

/** The API names of the fields whose value differs (jsonb keeps no key order, so objects compare by content). */
function changedFields(row: LicensePolicyRow, columns: PolicyColumns): string[] {
  return (Object.keys(COLUMN_NAMES) as (keyof PolicyColumns)[])
    .filter((k) => !isDeepStrictEqual(row[k], columns[k]))
    .map((k) => COLUMN_NAMES[k]);
}

function planned(fields: LicensePolicyFields | undefined): PolicyColumns {
  const plan = planLicensePolicy(policyInputOf(fields));
  if (!plan.ok) throw ProblemError.validation(plan.violations);
  return columnsOf(plan.fields);
}

/** Inserts or updates the policy of `scope`; a race between two first upserts is retried once as an update. */
async function upsert(
  deps: LicensePolicyDeps,
  caller: Person,
  scope: PolicyScope,
  organizationId: string | null,
  columns: PolicyColumns,
): Promise<{ row: LicensePolicyRow; created: boolean }> {
  const attempt = () =>
    deps.orm.em.fork().transactional(async (em: EntityManager) => {
      const now = new Date();
      const current = await lockPolicy(em, scope);
      const teamId = scope.kind === "team" ? scope.teamId : null;
      const audit = (action: string, details: Record<string, string>, targetId: string) =>
        emitAudit(em, {
          action,
          actor: callerActor(caller),
          targetId,
          teamId,
          organizationId,
          outcome: "success",
          at: now,
          details: { scope: scope.kind, ...details },
        });
      if (!current) {
        const row = await insertPolicy(em, {
          id: randomUUID(),
          organizationId,
          teamId,
          ...columns,
          createdByUserId: caller.user_id,
          updatedByUserId: caller.user_id,
          createdAt: now,
        });
        audit("license_policy.created", { enabled: String(row.enabled) }, row.id);
        emitLicensePolicyChanged(em, { organizationId, teamId }, now);
        return { row, created: true };
      }
      const fields = changedFields(current, columns);
      if (fields.length === 0 && current.organizationId === organizationId) return { row: current, created: false };
      const row = await updatePolicy(em, current, {
        ...columns,
        organizationId,
        updatedByUserId: caller.user_id,
        updatedAt: now,
      });
      // Which fields changed, never their values (an exception's reason may be sensitive).
      audit("license_policy.updated", { fields: fields.join(","), enabled: String(row.enabled) }, row.id);
      emitLicensePolicyChanged(em, { organizationId, teamId }, now);
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

/** The team's enabled policy, else its organization's enabled default, else null (the catalog alone). */
export async function policyInForce(em: EntityManager, team: TeamPlacement): Promise<LicensePolicyRow | null> {
  const [own, organizationDefault] = await Promise.all([
    findPolicy(em, { kind: "team", teamId: team.id }),
    team.organizationId
      ? findPolicy(em.fork(), { kind: "organization", organizationId: team.organizationId })
      : Promise.resolve(null),
  ]);
  return effectivePolicy(own, organizationDefault);
}

/** How many components one CategoriseLicenses call may carry. */
export const CATEGORISE_MAX_COMPONENTS = 10_000;

function oneOf<T extends string>(values: readonly T[], value: string | undefined, path: string): T | null {
  if (value === undefined || value === "") return null;
  if ((values as readonly string[]).includes(value)) return value as T;
  throw ProblemError.validation([{ path, message: `one of ${values.join(", ")}` }]);
}

export function registerLicensePolicyService(router: ConnectRouter, deps: LicensePolicyDeps): void {
  router.service(LicensePolicyService, {
    async putTeamLicensePolicy(req, ctx: HandlerContext) {
      const caller = requirePerson(ctx);
      const team = await teamFor(
        deps,
        caller,
        req.teamId,
        mayWriteTeamPolicy,
        "Changing a team's license policy needs the team_admin role on the team.",
      );
      const columns = planned(req.policy);
      const { row, created } = await upsert(
        deps,
        caller,
        { kind: "team", teamId: team.id },
        team.organizationId,
        columns,
      );
      return create(PutTeamLicensePolicyResponseSchema, { policy: licensePolicyView(row), created });
    },

    async getTeamLicensePolicy(req, ctx) {
      const caller = requirePerson(ctx);
      const team = await teamFor(deps, caller, req.teamId, mayReadTeamPolicy, "");
      const inForce = await policyInForce(deps.orm.em.fork(), team);
      if (!inForce)
        throw ProblemError.notFound("No license policy is in force for this team: the built-in catalog applies.");
      return create(GetTeamLicensePolicyResponseSchema, {
        policy: licensePolicyView(inForce),
        scope: inForce.teamId ? "team" : "organization",
      });
    },

    async deleteTeamLicensePolicy(req, ctx) {
      const caller = requirePerson(ctx);
      const team = await teamFor(
        deps,
        caller,
        req.teamId,
        mayWriteTeamPolicy,
        "Deleting a team's license policy needs the team_admin role on the team.",
      );
      const deleted = await deps.orm.em.fork().transactional(async (em) => {
        const current = await lockPolicy(em, { kind: "team", teamId: team.id });
        if (!current) return false;
        const now = new Date();
        await deletePolicy(em, current.id);
        emitAudit(em, {
          action: "license_policy.deleted",
          actor: callerActor(caller),
          targetId: current.id,
          teamId: team.id,
          organizationId: team.organizationId,
          outcome: "success",
          at: now,
          details: { scope: "team" },
        });
        emitLicensePolicyChanged(em, { organizationId: team.organizationId, teamId: team.id }, now);
        return true;
      });
      if (deleted) deps.wakeRelay();
      return create(DeleteTeamLicensePolicyResponseSchema, { deleted });
    },

    async putOrganizationLicensePolicy(req, ctx) {
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
      return create(PutOrganizationLicensePolicyResponseSchema, { policy: licensePolicyView(row), created });
    },

    async getOrganizationLicensePolicy(req, ctx) {
      requireSuperAdmin(ctx);
      if (!UUID.test(req.organizationId)) throw ProblemError.notFound();
      const row = await findPolicy(deps.orm.em.fork(), {
        kind: "organization",
        organizationId: req.organizationId.toLowerCase(),
      });
      if (!row) throw ProblemError.notFound("The organization has no default license policy.");
      return create(GetOrganizationLicensePolicyResponseSchema, { policy: licensePolicyView(row) });
    },

    async categoriseLicenses(req, ctx) {
      const caller = requireService(ctx, "projects");
      if (req.components.length > CATEGORISE_MAX_COMPONENTS)
        throw ProblemError.validation([
          { path: "components", message: `at most ${CATEGORISE_MAX_COMPONENTS} per call` },
        ]);
      const distributionModel = oneOf<DistributionModel>(
        DISTRIBUTION_MODELS,
        req.distributionModel,
        "distribution_model",
      );
      const aiUsageContext = oneOf<AiUsageContext>(AI_USAGE_CONTEXTS, req.aiUsageContext, "ai_usage_context");
      if (!UUID.test(req.teamId)) throw noSuchTeam();
      const team = await deps.directory.team(caller, req.teamId.toLowerCase());
      if (!team) throw noSuchTeam();
      const inForce = await policyInForce(deps.orm.em.fork(), team);
      const categories = categoriseComponents(
        req.components.map((c) => ({ license: c.license || null, purl: c.purl || null })),
        inForce ? rulesOf(inForce) : CATALOG_ONLY,
        { distributionModel, aiUsageContext, now: new Date() },
      );
      return create(CategoriseLicensesResponseSchema, {
        categories,
        scope: inForce ? (inForce.teamId ? "team" : "organization") : "",
        policyId: inForce?.id ?? "",
      });
    },

    async listLicensePolicies(req, ctx) {
      const caller = requirePerson(ctx);
      const page = pageOf(req.page, NUMBERED_PAGE_SIZE);
      const { rows, total } = await listPolicies(deps.orm.em.fork(), policyListScope(caller), page);
      return create(ListLicensePoliciesResponseSchema, {
        items: rows.map(licensePolicyView),
        page: pageInfo(page, total),
      });
    },
  });
}
