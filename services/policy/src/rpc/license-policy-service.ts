// LicensePolicyService: the upserts, reads, delete and list of license policies (docs/license-policies.md). A change
// runs in one transaction on the locked row with its audit event and a LicensePolicyChanged event; an upsert that
// changes nothing writes and emits nothing.
import { create } from "@bufbuild/protobuf";
import type { ConnectRouter, HandlerContext } from "@connectrpc/connect";
import type { EntityManager } from "@mikro-orm/postgresql";
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
import { requirePerson, requireService, requireSuperAdmin } from "@sca/rpc";
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
import { mayReadTeamPolicy, mayWriteTeamPolicy, policyListScope } from "../domain/policy-access.ts";
import { changedFieldNames } from "../domain/policy-changes.ts";
import { emitLicensePolicyChanged } from "../events/policy-events.ts";
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
} from "../store/license-policies.ts";
import { licensePolicyView, policyInputOf, rulesOf } from "./license-policy-views.ts";
import {
  deleteTeamPolicy,
  noSuchTeam,
  teamFor,
  upsertScopedPolicy,
  type ScopedPolicyDeps,
  type ScopedPolicyKind,
} from "./scoped-policy-writes.ts";
import { UUID } from "@sca/ids";

export interface LicensePolicyDeps extends ScopedPolicyDeps {
  directory: Directory;
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

function planned(fields: LicensePolicyFields | undefined): PolicyColumns {
  const plan = planLicensePolicy(policyInputOf(fields));
  if (!plan.ok) throw ProblemError.validation(plan.violations);
  return columnsOf(plan.fields);
}

const COLUMN_NAMES: Record<keyof PolicyColumns, string> = {
  name: "name",
  categoryOverrides: "category_overrides",
  licenseExceptions: "license_exceptions",
  unknownLicenseCategory: "unknown_license_category",
  compoundOperatorStrategy: "compound_operator_strategy",
  enabled: "enabled",
};

const LICENSE_POLICIES: ScopedPolicyKind<LicensePolicyRow, PolicyColumns, string | null> = {
  targetTable: "license_policies",
  action: "license_policy",
  lock: lockPolicy,
  insert: insertPolicy,
  update: updatePolicy,
  remove: deletePolicy,
  changedFields: (current, columns) => changedFieldNames(current, columns, COLUMN_NAMES),
  createdDetails: (row) => ({ enabled: String(row.enabled) }),
  // Which fields changed, never their values (an exception's reason may be sensitive).
  updatedDetails: (row, fields) => ({ fields: fields.join(","), enabled: String(row.enabled) }),
  emitChanged: (em, _row, scope, at) => emitLicensePolicyChanged(em, scope, at),
};

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
        deps.directory,
        caller,
        req.teamId,
        mayWriteTeamPolicy,
        "Changing a team's license policy needs the team_admin role on the team.",
      );
      const columns = planned(req.policy);
      const { row, created } = await upsertScopedPolicy(
        deps,
        LICENSE_POLICIES,
        caller,
        { kind: "team", teamId: team.id },
        team.organizationId,
        columns,
      );
      return create(PutTeamLicensePolicyResponseSchema, { policy: licensePolicyView(row), created });
    },

    async getTeamLicensePolicy(req, ctx) {
      const caller = requirePerson(ctx);
      const team = await teamFor(deps.directory, caller, req.teamId, mayReadTeamPolicy, "");
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
        deps.directory,
        caller,
        req.teamId,
        mayWriteTeamPolicy,
        "Deleting a team's license policy needs the team_admin role on the team.",
      );
      const deleted = await deleteTeamPolicy(deps, LICENSE_POLICIES, caller, team);
      return create(DeleteTeamLicensePolicyResponseSchema, { deleted });
    },

    async putOrganizationLicensePolicy(req, ctx) {
      const caller = requireSuperAdmin(ctx);
      if (!UUID.test(req.organizationId)) throw ProblemError.notFound();
      const organizationId = req.organizationId.toLowerCase();
      const { row, created } = await upsertScopedPolicy(
        deps,
        LICENSE_POLICIES,
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
