// The role rules of the directory: which roles exist, how they rank, what a role-change body means.
import { isSuperAdmin, type Caller, type Role } from "@sca/rpc";

/** Roles a membership (a role on one team) may carry; super_admin is a user flag, not a membership. */
export const MEMBERSHIP_ROLES = ["group_admin", "team_admin", "developer", "viewer"] as const;
export type MembershipRole = (typeof MEMBERSHIP_ROLES)[number];

/** Roles the admin role-change body accepts (the spec's list). */
export const ASSIGNABLE_ROLES = ["super_admin", "group_admin", "developer"] as const;

const RANK: Record<Role, number> = { super_admin: 5, group_admin: 4, team_admin: 3, developer: 2, viewer: 1 };

export function isMembershipRole(value: string): value is MembershipRole {
  return (MEMBERSHIP_ROLES as readonly string[]).includes(value);
}

export function roleAtLeast(role: Role, minimum: Role): boolean {
  return RANK[role] >= RANK[minimum];
}

/** Strictly stronger: of two roles on one team, the one that wins. */
export function outranks(role: Role, other: Role): boolean {
  return RANK[role] > RANK[other];
}

/** The caller's effective role on a team (memberships are already cascaded), or null. */
export function roleOnTeam(caller: Caller, teamId: string): Role | null {
  return caller.memberships.find((m) => m.team_id === teamId)?.role ?? null;
}

/** super_admin everywhere; otherwise the effective membership role on the team must reach `minimum`. */
export function mayActOnTeam(caller: Caller, teamId: string, minimum: Role): boolean {
  if (caller.is_superuser) return true;
  const role = roleOnTeam(caller, teamId);
  return role !== null && roleAtLeast(role, minimum);
}

/** The admin surface is for people holding super_admin; API keys never administer (see docs/identity-directory.md). */
export const isAdministrator: (caller: Caller) => boolean = isSuperAdmin;

export type RoleChange =
  { kind: "super_admin" } | { kind: "team_role"; role: "group_admin" | "developer"; teamId: string };

export type RoleChangeResult = { ok: true; change: RoleChange } | { ok: false; path: string; message: string };

/** Reads a role-change body: team_id is required for group_admin and developer, ignored for super_admin. */
export function parseRoleChange(role: string, teamId: string | undefined): RoleChangeResult {
  if (role === "super_admin") return { ok: true, change: { kind: "super_admin" } };
  if (role !== "group_admin" && role !== "developer") {
    return { ok: false, path: "body.role", message: `must be one of ${ASSIGNABLE_ROLES.join(", ")}` };
  }
  if (!teamId) return { ok: false, path: "body.team_id", message: `is required for the ${role} role` };
  return { ok: true, change: { kind: "team_role", role, teamId } };
}

/**
 * A role change names the user's role: naming a team role for a current super_admin takes super_admin away
 * (a demotion), so it is guarded by the last-super-admin rule.
 */
export function isDemotion(currentlySuperAdmin: boolean, change: RoleChange): boolean {
  return currentlySuperAdmin && change.kind !== "super_admin";
}
