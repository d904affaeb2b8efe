// Who may do what with approval requests and organization verdicts (docs/approvals.md, "Who may"):
// - approvals are team-scoped: a member of the project's team (any role) asks and reads; a team_admin of the team
//   (or a role above it there) decides; a super_admin everything. Nobody decides a request they made themselves
//   (a second person confirms). A non-member learns nothing: not found.
// - deleting a non-terminal request: its requester, a team_admin of its team, or a super_admin (the spec's rule).
// - verdicts are organization-wide: any member of a team of the organization reads the published part; writers are
//   a super_admin and a group_admin of a team of the organization, and only they see the deliberation and names.
import { isSuperAdmin, type Caller, type Role } from "@sca/rpc";

const RANK: Record<Role, number> = { super_admin: 5, group_admin: 4, team_admin: 3, developer: 2, viewer: 1 };

export type Decision = "allow" | "not_found" | "forbidden";

function roleOnTeam(caller: Caller, teamId: string): Role | null {
  return caller.memberships.find((m) => m.team_id === teamId)?.role ?? null;
}

export function mayReadTeamApprovals(caller: Caller, teamId: string): Decision {
  return isSuperAdmin(caller) || roleOnTeam(caller, teamId) ? "allow" : "not_found";
}

export function mayDecideApproval(caller: Caller, approval: { teamId: string; requestedByUserId: string }): Decision {
  if (!isSuperAdmin(caller)) {
    const role = roleOnTeam(caller, approval.teamId);
    if (!role) return "not_found";
    if (RANK[role] < RANK.team_admin) return "forbidden";
  }
  return caller.user_id === approval.requestedByUserId ? "forbidden" : "allow";
}

export function mayDeleteApproval(caller: Caller, approval: { teamId: string; requestedByUserId: string }): Decision {
  if (isSuperAdmin(caller)) return "allow";
  const role = roleOnTeam(caller, approval.teamId);
  if (!role) return "not_found";
  if (caller.user_id === approval.requestedByUserId || RANK[role] >= RANK.team_admin) return "allow";
  return "forbidden";
}

/** Which approvals a list may show: every one, or those of these teams. */
export type ApprovalListScope = { kind: "all" } | { kind: "teams"; teamIds: string[] };

export function approvalListScope(caller: Caller): ApprovalListScope {
  if (isSuperAdmin(caller)) return { kind: "all" };
  return { kind: "teams", teamIds: [...new Set(caller.memberships.map((m) => m.team_id))] };
}

/** How much of an organization's verdicts the caller sees: nothing (not found), the published part, or all. */
export type VerdictReach = "none" | "reader" | "writer";

export function verdictReach(caller: Caller, organizationId: string): VerdictReach {
  if (isSuperAdmin(caller)) return "writer";
  const inOrganization = caller.memberships.filter((m) => m.organization_id === organizationId);
  if (inOrganization.length === 0) return "none";
  return inOrganization.some((m) => RANK[m.role] >= RANK.group_admin) ? "writer" : "reader";
}
