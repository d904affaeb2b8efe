// The keys a person manages: its own, those of teams it administers, all for a super_admin. Listing, revoking
// (idempotent) and narrowing to read_only; a change drops the gateway's cached answer for the key at once.
import { create } from "@bufbuild/protobuf";
import { callerActor } from "@sca/audit";
import { NUMBERED_PAGE_SIZE, pageInfo, pageOf } from "@sca/paging";
import { ProblemError } from "@sca/problem";
import {
  ListApiKeysResponseSchema,
  NarrowApiKeyResponseSchema,
  RevokeApiKeyResponseSchema,
} from "@sca/proto/sca/identity/v1/api_keys_pb.ts";
import type { Caller } from "@sca/rpc";
import { mayManageKey, narrowedBreadth } from "../domain/api-key-scope.ts";
import { roleAtLeast } from "../domain/roles.ts";
import { emitAudit } from "../events/account-events.ts";
import * as keys from "../store/api-keys.ts";
import { requireKeyManager, type ApiKeyHandlers, type ApiKeyServiceDeps } from "./api-key-deps.ts";
import { apiKeyView } from "./directory-views.ts";
import { bodyId, invalid, pathId } from "./fields.ts";

export function apiKeyManagementHandlers(
  deps: ApiKeyServiceDeps,
): ApiKeyHandlers<"listApiKeys" | "revokeApiKey" | "narrowApiKey"> {
  const fork = () => deps.orm.em.fork();

  /** The key, when the caller may manage it; NotFound otherwise so keys of other teams stay invisible. */
  async function manageableKey(caller: Caller, rawId: string) {
    const key = await keys.apiKeyById(fork(), pathId(rawId));
    if (!key || !mayManageKey(caller, { createdByUserId: key.createdByUserId ?? "", teamId: key.teamId })) {
      throw ProblemError.notFound("No such API key.");
    }
    return key;
  }

  return {
    async listApiKeys(req, ctx) {
      const caller = requireKeyManager(ctx);
      const p = pageOf(req.page, NUMBERED_PAGE_SIZE);
      const administeredTeams = caller.memberships
        .filter((m) => roleAtLeast(m.role, "team_admin"))
        .map((m) => m.team_id);
      const { rows, total } = await keys.listApiKeys(
        fork(),
        {
          scope: req.scope || undefined,
          teamId: bodyId(req.teamId, "query.team_id"),
          projectId: bodyId(req.projectId, "query.project_id"),
          includeRevoked: req.includeRevoked,
          visibleTo: caller.is_superuser ? null : { userId: caller.user_id, teamIds: administeredTeams },
        },
        p.limit,
        p.offset,
      );
      return create(ListApiKeysResponseSchema, { items: rows.map(apiKeyView), page: pageInfo(p, total) });
    },

    async revokeApiKey(req, ctx) {
      const caller = requireKeyManager(ctx);
      const key = await manageableKey(caller, req.keyId);
      const row = await fork().transactional(async (em) => {
        const revoked = await keys.revokeApiKey(em, key.id);
        if (!key.revokedAt) {
          emitAudit(em, {
            action: "api_key.revoked",
            targetTable: "api_keys",
            targetId: key.id,
            teamId: key.teamId,
            organizationId: key.organizationId,
            details: { key_prefix: key.keyPrefix },
            actor: callerActor(caller),
            outcome: "success",
            at: new Date(),
          });
        }
        return revoked!;
      });
      await deps.apiKeyAnswers.forget([key.keyPrefix]);
      return create(RevokeApiKeyResponseSchema, { key: apiKeyView(row) });
    },

    async narrowApiKey(req, ctx) {
      const caller = requireKeyManager(ctx);
      const breadth = narrowedBreadth(req.permissionBreadth);
      if (!breadth) throw invalid("body.permission_breadth", "must be read_only: a key is never widened");
      const key = await manageableKey(caller, req.keyId);
      if (key.permissionBreadth === breadth) return create(NarrowApiKeyResponseSchema, { key: apiKeyView(key) });
      const row = await fork().transactional(async (em) => {
        const narrowed = await keys.narrowApiKey(em, key.id);
        emitAudit(em, {
          action: "api_key.narrowed",
          targetTable: "api_keys",
          targetId: key.id,
          teamId: key.teamId,
          organizationId: key.organizationId,
          details: { key_prefix: key.keyPrefix, permission_breadth: breadth },
          actor: callerActor(caller),
          outcome: "success",
          at: new Date(),
        });
        return narrowed!;
      });
      await deps.apiKeyAnswers.forget([key.keyPrefix]);
      return create(NarrowApiKeyResponseSchema, { key: apiKeyView(row) });
    },
  };
}
