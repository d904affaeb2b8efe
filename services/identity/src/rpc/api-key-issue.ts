// Issuing a key: the plan (scope, team, project, breadth, lifetime), who may issue that scope, the holder (the
// caller, or a service account within the issuer's reach), the stored hash, the audit. The raw key is answered once.
import { create } from "@bufbuild/protobuf";
import { callerActor } from "@sca/audit";
import { ProblemError } from "@sca/problem";
import { IssueApiKeyResponseSchema } from "@sca/proto/sca/identity/v1/api_keys_pb.ts";
import { deriveApiKeyHashKey, generateApiKey, hashApiKey } from "../domain/api-key-format.ts";
import { mayIssue, planIssue, serviceAccountWithinIssuer } from "../domain/api-key-scope.ts";
import { roleOnTeam } from "../domain/roles.ts";
import { emitAudit } from "../events/account-events.ts";
import { teamsCoveredBy } from "../store/api-key-caller.ts";
import * as keys from "../store/api-keys.ts";
import { effectiveMemberships } from "../store/callers.ts";
import { organizationExists, soleOrganizationId } from "../store/organizations.ts";
import { isMemberOf, teamById } from "../store/teams.ts";
import { isActiveServiceAccount } from "../store/accounts.ts";
import { knownProject } from "../store/known-projects.ts";
import { requireKeyManager, type ApiKeyHandlers, type ApiKeyServiceDeps } from "./api-key-deps.ts";
import { apiKeyView } from "./directory-views.ts";
import { bodyId, invalid } from "./fields.ts";

const DAY_MS = 86_400_000;

export function issueApiKeyHandlers(deps: ApiKeyServiceDeps): ApiKeyHandlers<"issueApiKey"> {
  const fork = () => deps.orm.em.fork();
  const hashKey = deriveApiKeyHashKey(deps.secretKey);
  return {
    async issueApiKey(req, ctx) {
      const caller = requireKeyManager(ctx);
      const planned = planIssue({
        name: req.name,
        scope: req.scope,
        teamId: bodyId(req.teamId, "body.team_id"),
        projectId: bodyId(req.projectId, "body.project_id"),
        expiresInDays: req.expiresInDays,
        permissionBreadth: req.permissionBreadth,
      });
      if (!planned.ok) throw ProblemError.validation(planned.violations);
      const { plan } = planned;
      const serviceAccountId = bodyId(req.serviceAccountId, "body.service_account_id") ?? null;
      const requestedOrg = bodyId(req.organizationId, "body.organization_id");
      const { prefix, raw } = generateApiKey();

      const row = await fork().transactional(async (em) => {
        let organizationId: string | null;
        if (plan.teamId) {
          const team = await teamById(em, plan.teamId);
          // A team the caller has no role on is not acknowledged to exist.
          if (!team || (!caller.is_superuser && !roleOnTeam(caller, plan.teamId)))
            throw ProblemError.notFound("No such team.");
          organizationId = team.organizationId;
        } else {
          // Refused before any lookup, so a caller who may not issue org keys learns nothing of which organizations exist.
          if (!mayIssue(caller, plan.scope, plan.teamId))
            throw ProblemError.forbidden(`Your role does not allow issuing ${plan.scope}-scoped keys here.`);
          organizationId = requestedOrg ?? (await soleOrganizationId(em));
          if (!organizationId) throw invalid("body.organization_id", "is required when several organizations exist");
          if (!(await organizationExists(em, organizationId)))
            throw invalid("body.organization_id", "no such organization");
        }
        if (!mayIssue(caller, plan.scope, plan.teamId))
          throw ProblemError.forbidden(`Your role does not allow issuing ${plan.scope}-scoped keys here.`);
        // A project key names an active project of its team (identity's copy of projects' events).
        if (plan.projectId) {
          const project = await knownProject(em, plan.projectId);
          if (!project || project.archived || project.teamId !== plan.teamId)
            throw invalid("body.project_id", "is not an active project of the team");
        }
        if (serviceAccountId) {
          if (!(await isActiveServiceAccount(em, serviceAccountId)))
            throw invalid("body.service_account_id", "no such active service account");
          // Outside super_admin, a key goes only to a service account already serving the key's team.
          if (!caller.is_superuser && !(plan.teamId && (await isMemberOf(em, serviceAccountId, plan.teamId)))) {
            throw ProblemError.forbidden("The service account is not a member of the key's team.");
          }
          const covered = await teamsCoveredBy(em, plan.scope, plan.teamId, deps.groupCascade);
          if (
            !serviceAccountWithinIssuer(
              caller,
              await effectiveMemberships(em, serviceAccountId, deps.groupCascade),
              covered,
            )
          ) {
            throw ProblemError.forbidden(
              "The service account holds a stronger role than yours on a team the key would reach.",
            );
          }
        }
        const inserted = await keys.insertApiKey(em, {
          name: plan.name,
          scope: plan.scope,
          organizationId,
          teamId: plan.teamId,
          projectId: plan.projectId,
          permissionBreadth: plan.permissionBreadth,
          prefix,
          hash: hashApiKey(raw, hashKey),
          createdByUserId: caller.user_id,
          createdByEmail: caller.email,
          serviceAccountId,
          expiresAt: plan.expiresInDays === null ? null : new Date(Date.now() + plan.expiresInDays * DAY_MS),
        });
        emitAudit(em, {
          action: "api_key.issued",
          targetTable: "api_keys",
          targetId: inserted.id,
          teamId: plan.teamId,
          organizationId,
          details: {
            scope: plan.scope,
            permission_breadth: plan.permissionBreadth,
            key_prefix: prefix,
            service_account_id: serviceAccountId ?? "",
          },
          actor: callerActor(caller),
          outcome: "success",
          at: new Date(),
        });
        return inserted;
      });
      return create(IssueApiKeyResponseSchema, { key: apiKeyView(row), rawKey: raw });
    },
  };
}
