// ApiKeyService: issue, list, revoke, narrow, and the admin hash statistics. Only people manage keys.
import { create } from "@bufbuild/protobuf";
import type { ConnectRouter } from "@connectrpc/connect";
import type { MikroORM } from "@mikro-orm/postgresql";
import { NUMBERED_PAGE_SIZE, pageInfo, pageOf } from "@sca/paging";
import { ProblemError } from "@sca/problem";
import {
  ApiKeyService, GetApiKeyHashStatsResponseSchema, IssueApiKeyResponseSchema, ListApiKeysResponseSchema,
  NarrowApiKeyResponseSchema, RevokeApiKeyResponseSchema,
} from "@sca/proto/sca/identity/v1/api_keys_pb.ts";
import { requirePerson, requireSuperAdmin, type Caller } from "@sca/rpc";
import { deriveApiKeyHashKey, generateApiKey, hashApiKey } from "../domain/api-key-format.ts";
import { mayIssue, mayManageKey, narrowedBreadth, planIssue, serviceAccountWithinIssuer } from "../domain/api-key-scope.ts";
import { roleAtLeast, roleOnTeam } from "../domain/roles.ts";
import { callerActor } from "@sca/audit";
import { emitAudit } from "../events/account-events.ts";
import type { ApiKeyAnswerCache } from "../store/api-key-answer-cache.ts";
import { teamsCoveredBy } from "../store/api-key-caller.ts";
import * as keys from "../store/api-keys.ts";
import { effectiveMemberships } from "../store/callers.ts";
import { organizationExists, soleOrganizationId } from "../store/organizations.ts";
import { isMemberOf, teamById } from "../store/teams.ts";
import { isActiveServiceAccount } from "../store/accounts.ts";
import { apiKeyView } from "./directory-views.ts";
import { bodyId, pathId } from "./fields.ts";

export interface ApiKeyServiceDeps {
  orm: MikroORM;
  secretKey: string;
  apiKeyAnswers: ApiKeyAnswerCache;
  /** GROUP_CASCADE_ENABLED: what a team key and a service account's memberships reach. */
  groupCascade: boolean;
}

const DAY_MS = 86_400_000;

const peopleOnly = () => ProblemError.forbidden("API keys are managed by people, not by other API keys.");

const invalid = (path: string, message: string) => ProblemError.validation([{ path, message }]);

export function registerApiKeyService(router: ConnectRouter, deps: ApiKeyServiceDeps): void {
  const fork = () => deps.orm.em.fork();
  const hashKey = deriveApiKeyHashKey(deps.secretKey);

  /** The key, when the caller may manage it; NotFound otherwise so keys of other teams stay invisible. */
  async function manageableKey(caller: Caller, rawId: string) {
    const key = await keys.apiKeyById(fork(), pathId(rawId));
    if (!key || !mayManageKey(caller, { createdByUserId: key.createdByUserId ?? "", teamId: key.teamId })) {
      throw ProblemError.notFound("No such API key.");
    }
    return key;
  }

  router.service(ApiKeyService, {
    async issueApiKey(req, ctx) {
      const caller = requirePerson(ctx, peopleOnly);
      const planned = planIssue({
        name: req.name, scope: req.scope, teamId: bodyId(req.teamId, "body.team_id"),
        projectId: bodyId(req.projectId, "body.project_id"), expiresInDays: req.expiresInDays,
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
          if (!team || (!caller.is_superuser && !roleOnTeam(caller, plan.teamId))) throw ProblemError.notFound("No such team.");
          organizationId = team.organizationId;
        } else {
          // Refused before any lookup, so a caller who may not issue org keys learns nothing of which organizations exist.
          if (!mayIssue(caller, plan.scope, plan.teamId)) throw ProblemError.forbidden(`Your role does not allow issuing ${plan.scope}-scoped keys here.`);
          organizationId = requestedOrg ?? await soleOrganizationId(em);
          if (!organizationId) throw invalid("body.organization_id", "is required when several organizations exist");
          if (!await organizationExists(em, organizationId)) throw invalid("body.organization_id", "no such organization");
        }
        if (!mayIssue(caller, plan.scope, plan.teamId)) throw ProblemError.forbidden(`Your role does not allow issuing ${plan.scope}-scoped keys here.`);
        if (serviceAccountId) {
          if (!await isActiveServiceAccount(em, serviceAccountId)) throw invalid("body.service_account_id", "no such active service account");
          // Outside super_admin, a key goes only to a service account already serving the key's team.
          if (!caller.is_superuser && !(plan.teamId && await isMemberOf(em, serviceAccountId, plan.teamId))) {
            throw ProblemError.forbidden("The service account is not a member of the key's team.");
          }
          const covered = await teamsCoveredBy(em, plan.scope, plan.teamId, deps.groupCascade);
          if (!serviceAccountWithinIssuer(caller, await effectiveMemberships(em, serviceAccountId, deps.groupCascade), covered)) {
            throw ProblemError.forbidden("The service account holds a stronger role than yours on a team the key would reach.");
          }
        }
        const inserted = await keys.insertApiKey(em, {
          name: plan.name, scope: plan.scope, organizationId, teamId: plan.teamId, projectId: plan.projectId,
          permissionBreadth: plan.permissionBreadth, prefix, hash: hashApiKey(raw, hashKey),
          createdByUserId: caller.user_id, createdByEmail: caller.email, serviceAccountId,
          expiresAt: plan.expiresInDays === null ? null : new Date(Date.now() + plan.expiresInDays * DAY_MS),
        });
        emitAudit(em, {
          action: "api_key.issued", targetTable: "api_keys", targetId: inserted.id, teamId: plan.teamId, organizationId,
          details: { scope: plan.scope, permission_breadth: plan.permissionBreadth, key_prefix: prefix, service_account_id: serviceAccountId ?? "" },
          actor: callerActor(caller), outcome: "success", at: new Date(),
        });
        return inserted;
      });
      return create(IssueApiKeyResponseSchema, { key: apiKeyView(row), rawKey: raw });
    },

    async listApiKeys(req, ctx) {
      const caller = requirePerson(ctx, peopleOnly);
      const p = pageOf(req.page, NUMBERED_PAGE_SIZE);
      const administeredTeams = caller.memberships.filter((m) => roleAtLeast(m.role, "team_admin")).map((m) => m.team_id);
      const { rows, total } = await keys.listApiKeys(fork(), {
        scope: req.scope || undefined, teamId: bodyId(req.teamId, "query.team_id"), projectId: bodyId(req.projectId, "query.project_id"),
        includeRevoked: req.includeRevoked,
        visibleTo: caller.is_superuser ? null : { userId: caller.user_id, teamIds: administeredTeams },
      }, p.limit, p.offset);
      return create(ListApiKeysResponseSchema, { items: rows.map(apiKeyView), page: pageInfo(p, total) });
    },

    async revokeApiKey(req, ctx) {
      const caller = requirePerson(ctx, peopleOnly);
      const key = await manageableKey(caller, req.keyId);
      const row = await fork().transactional(async (em) => {
        const revoked = await keys.revokeApiKey(em, key.id);
        if (!key.revokedAt) {
          emitAudit(em, {
            action: "api_key.revoked", targetTable: "api_keys", targetId: key.id, teamId: key.teamId,
            organizationId: key.organizationId, details: { key_prefix: key.keyPrefix },
            actor: callerActor(caller), outcome: "success", at: new Date(),
          });
        }
        return revoked!;
      });
      await deps.apiKeyAnswers.forget([key.keyPrefix]);
      return create(RevokeApiKeyResponseSchema, { key: apiKeyView(row) });
    },

    async narrowApiKey(req, ctx) {
      const caller = requirePerson(ctx, peopleOnly);
      const breadth = narrowedBreadth(req.permissionBreadth);
      if (!breadth) throw invalid("body.permission_breadth", "must be read_only: a key is never widened");
      const key = await manageableKey(caller, req.keyId);
      if (key.permissionBreadth === breadth) return create(NarrowApiKeyResponseSchema, { key: apiKeyView(key) });
      const row = await fork().transactional(async (em) => {
        const narrowed = await keys.narrowApiKey(em, key.id);
        emitAudit(em, {
          action: "api_key.narrowed", targetTable: "api_keys", targetId: key.id, teamId: key.teamId,
          organizationId: key.organizationId, details: { key_prefix: key.keyPrefix, permission_breadth: breadth },
          actor: callerActor(caller), outcome: "success", at: new Date(),
        });
        return narrowed!;
      });
      await deps.apiKeyAnswers.forget([key.keyPrefix]);
      return create(NarrowApiKeyResponseSchema, { key: apiKeyView(row) });
    },

    async getApiKeyHashStats(_req, ctx) {
      requireSuperAdmin(ctx);
      const s = await keys.apiKeyHashStats(fork());
      return create(GetApiKeyHashStatsResponseSchema, {
        activeTotal: s.activeTotal, hmacSha256Count: s.hmacSha256Count, legacyBcryptCount: s.legacyBcryptCount,
      });
    },
  });
}
