// Who may do what with license policies (the spec's License policies table; docs/license-policies.md):
// - a team's policy: read by any member of the team, written and deleted by its team_admin (or a role above it
//   on the team); a super_admin everything. Someone outside the team learns nothing: not found.
// - an organization default: read and written by a super_admin only; anyone else: not found.
// - the list: a super_admin every policy; anyone else the policies of their teams and the defaults of those teams'
//   organizations (which the team read already shows them as the policy in force).
import { isSuperAdmin, type Caller, type Role } from "@sca/rpc";

const RANK: Record<Role, number> = { super_admin: 5, group_admin: 4, team_admin: 3, developer: 2, viewer: 1 };

export type TeamDecision = "allow" | "not_found" | "forbidden";

function roleOnTeam(caller: Caller, teamId: string): Role | null {
  return caller.memberships.find((m) => m.team_id === teamId)?.role ?? null;
}

export function mayReadTeamPolicy(caller: Caller, teamId: string): TeamDecision {
  if (isSuperAdmin(caller) || roleOnTeam(caller, teamId)) return "allow";
  return "not_found";
}

export function mayWriteTeamPolicy(caller: Caller, teamId: string): TeamDecision {
  if (isSuperAdmin(caller)) return "allow";
  const role = roleOnTeam(caller, teamId);
  if (!role) return "not_found";
  return RANK[role] >= RANK.team_admin ? "allow" : "forbidden";
}

/** Which policies a list may show: every one, or those of these teams and these organizations' defaults. */
export type PolicyListScope = { kind: "all" } | { kind: "some"; teamIds: string[]; organizationIds: string[] };

export function policyListScope(caller: Caller): PolicyListScope {
  if (isSuperAdmin(caller)) return { kind: "all" };
  return {
    kind: "some",
    teamIds: [...new Set(caller.memberships.map((m) => m.team_id))],
    organizationIds: [
      ...new Set(caller.memberships.map((m) => m.organization_id).filter((o): o is string => o !== null)),
    ],
  };
}
