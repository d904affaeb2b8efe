// Builds the caller the services will trust: the user's effective memberships, with the group hierarchy's
// cascade applied when GROUP_CASCADE_ENABLED (a role on a group reaches every subgroup below it).
import type { EntityManager } from "@mikro-orm/postgresql";
import type { Caller, Membership } from "@sca/rpc";
import { outranks } from "../domain/roles.ts";
import { accountById } from "./accounts.ts";
import { membershipsReached } from "./teams.ts";

/** Direct memberships, and with cascade those inherited by subgroups; the strongest role per group wins. */
export async function effectiveMemberships(em: EntityManager, userId: string, cascade: boolean): Promise<Membership[]> {
  const strongest = new Map<string, Membership>();
  for (const r of await membershipsReached(em, userId, cascade)) {
    const seen = strongest.get(r.groupId);
    if (!seen || outranks(r.role, seen.role)) {
      strongest.set(r.groupId, { team_id: r.groupId, organization_id: r.organizationId, role: r.role });
    }
  }
  return [...strongest.values()];
}

/** The caller for an active user, or null when the user is gone or deactivated. */
export async function userCaller(
  em: EntityManager,
  userId: string,
  opts: { cascade: boolean; ip: string | null; userAgent: string | null },
): Promise<Caller | null> {
  const user = await accountById(em, userId);
  if (!user || !user.isActive) return null;
  return {
    kind: "user",
    user_id: user.id,
    email: user.email,
    is_superuser: user.isSuperuser,
    memberships: await effectiveMemberships(em, user.id, opts.cascade),
    api_key_id: null,
    api_key: null,
    ip: opts.ip,
    user_agent: opts.userAgent,
  };
}
