// Who may read which part of the audit log (the spec's Authentication rules): the whole log is the super_admin's
// (anyone else is told it does not exist); a team's entries are also readable by a person who is team_admin or above
// on the team (memberships arrive cascaded to subgroups, so a group_admin above it counts). API keys read no audit.
import { isPerson, isSuperAdmin, type Caller, type Role } from "@sca/rpc";

const RANK: Record<Role, number> = { super_admin: 5, group_admin: 4, team_admin: 3, developer: 2, viewer: 1 };

export function mayReadTeamAudit(caller: Caller, teamId: string): boolean {
  if (isSuperAdmin(caller)) return true;
  if (!isPerson(caller)) return false;
  return caller.memberships.some((m) => m.team_id === teamId && RANK[m.role] >= RANK.team_admin);
}
