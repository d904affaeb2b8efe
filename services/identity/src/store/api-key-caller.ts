// The caller an API key stands for: its holder (the service account, else the issuing person), reduced to
// what the key's scope covers, with the grant attached for the services' own tenant checks.
import type { EntityManager } from "@mikro-orm/postgresql";
import type { ApiKeyGrant, Caller } from "@sca/rpc";
import { parseApiKey, verifyApiKeyHash } from "../domain/api-key-format.ts";
import { membershipsWithinGrant } from "../domain/api-key-scope.ts";
import { apiKeyCredential, touchApiKey } from "./api-keys.ts";
import { effectiveMemberships } from "./callers.ts";
import { subtreeOf } from "./teams.ts";

/** The teams a key of this scope reaches: a team key reaches the team's subteams exactly when a membership would. */
export async function teamsCoveredBy(
  em: EntityManager,
  scope: ApiKeyGrant["scope"],
  teamId: string | null,
  cascade: boolean,
): Promise<Set<string>> {
  if (teamId === null) return new Set();
  return new Set(scope === "team" && cascade ? await subtreeOf(em, teamId) : [teamId]);
}

export interface ApiKeyCallerOptions {
  hashKey: Buffer;
  cascade: boolean;
  ip: string | null;
  userAgent: string | null;
  now?: Date;
}

/** The caller for a valid, unrevoked, unexpired key whose holder is active; null for anything else. */
export async function apiKeyCaller(
  em: EntityManager,
  bearer: string,
  opts: ApiKeyCallerOptions,
): Promise<{ caller: Caller; prefix: string; expiresAt: Date | null } | null> {
  const parsed = parseApiKey(bearer);
  if (!parsed) return null;
  const key = await apiKeyCredential(em, parsed.prefix);
  if (!key || !(await verifyApiKeyHash(parsed.raw, key.keyHash, key.hashFormat, opts.hashKey))) return null;
  const now = opts.now ?? new Date();
  if (key.revokedAt || (key.expiresAt && key.expiresAt <= now) || !key.holderActive) return null;

  const grant: ApiKeyGrant = {
    scope: key.scope,
    organization_id: key.organizationId,
    team_id: key.teamId,
    project_id: key.projectId,
    permission_breadth: key.permissionBreadth,
  };
  const teamsCovered = await teamsCoveredBy(em, key.scope, key.teamId, opts.cascade);
  const memberships = membershipsWithinGrant(
    await effectiveMemberships(em, key.holderId, opts.cascade),
    grant,
    teamsCovered,
  );
  await touchApiKey(em, key.id);
  return {
    prefix: key.keyPrefix,
    expiresAt: key.expiresAt,
    caller: {
      kind: "api_key",
      user_id: key.holderId,
      email: key.holderEmail,
      is_superuser: false,
      memberships,
      api_key_id: key.id,
      api_key: grant,
      ip: opts.ip,
      user_agent: opts.userAgent,
    },
  };
}
