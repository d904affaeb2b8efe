// Builds the caller the services will trust: the user's effective memberships, with the group hierarchy's
// cascade applied when GROUP_CASCADE_ENABLED (a role on a group reaches every subgroup below it).
import type { EntityManager } from "@mikro-orm/postgresql";
import type { Caller, Membership } from "@sca/rpc";
import { outranks } from "../domain/roles.ts";
import { query } from "./raw-sql.ts";

interface UserRow { id: string; email: string; is_active: boolean; is_superuser: boolean }

/** Direct memberships, and with cascade those inherited by subgroups; the strongest role per group wins. */
export async function effectiveMemberships(em: EntityManager, userId: string, cascade: boolean): Promise<Membership[]> {
  const rows = await query<{ group_id: string; organization_id: string | null; role: Membership["role"] }>(em,
    cascade
      ? `with recursive reach(group_id, role) as (
           select m.group_id, m.role from memberships m where m.user_id = ?
           union
           select g.id, r.role from groups g join reach r on g.parent_group_id = r.group_id)
         select r.group_id, g.organization_id, r.role from reach r join groups g on g.id = r.group_id`
      : `select m.group_id, g.organization_id, m.role from memberships m join groups g on g.id = m.group_id where m.user_id = ?`,
    [userId],
  );
  const strongest = new Map<string, Membership>();
  for (const r of rows) {
    const seen = strongest.get(r.group_id);
    if (!seen || outranks(r.role, seen.role)) {
      strongest.set(r.group_id, { team_id: r.group_id, organization_id: r.organization_id, role: r.role });
    }
  }
  return [...strongest.values()];
}

/** The caller for an active user, or null when the user is gone or deactivated. */
export async function userCaller(em: EntityManager, userId: string, opts: { cascade: boolean; ip: string | null; userAgent: string | null }): Promise<Caller | null> {
  const [user] = await query<UserRow>(em, "select id, email, is_active, is_superuser from users where id = ?", [userId]);
  if (!user || !user.is_active) return null;
  return {
    kind: "user",
    user_id: user.id,
    email: user.email,
    is_superuser: user.is_superuser,
    memberships: await effectiveMemberships(em, user.id, opts.cascade),
    api_key_id: null,
    api_key: null,
    ip: opts.ip,
    user_agent: opts.userAgent,
  };
}
