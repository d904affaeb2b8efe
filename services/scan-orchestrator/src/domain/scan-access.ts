// Who reads which scans. A scan belongs to its project's team: members of that team (any role, cascade already
// applied to the caller's memberships) read it, a super_admin reads every scan, and an API key reads only what its
// grant reaches (identity narrowed its memberships to the grant's teams; a project key also stops at its project).
import { isSuperAdmin, type Caller } from "@sca/rpc";

export interface ScanOwner {
  teamId: string;
  projectId: string;
}

/** Whether the caller may read a scan of this project and team. Callers who may not get NotFound, never 403. */
export function mayReadScan(caller: Caller, owner: ScanOwner): boolean {
  if (isSuperAdmin(caller)) return true;
  if (!caller.memberships.some((m) => m.team_id === owner.teamId)) return false;
  const grant = caller.api_key;
  return !(grant?.scope === "project" && grant.project_id !== owner.projectId);
}

/** The scans a caller's own list (GET /v1/scans) covers: every one, or those of some teams (and one project). */
export type ScanVisibility = { all: true } | { all: false; teamIds: string[]; projectId: string | null };

export function scanVisibility(caller: Caller): ScanVisibility {
  if (isSuperAdmin(caller)) return { all: true };
  const teamIds = [...new Set(caller.memberships.map((m) => m.team_id))];
  const grant = caller.api_key;
  return { all: false, teamIds, projectId: grant?.scope === "project" ? grant.project_id : null };
}

const WRITER_ROLES: ReadonlySet<string> = new Set(["developer", "team_admin", "group_admin", "super_admin"]);

/**
 * Whether the caller may start scans of (and upload for) a project it can read: developer or above on the
 * project's team (super_admin anywhere); an API key also needs a read_write grant reaching the project.
 */
export function mayCreateScan(caller: Caller, owner: ScanOwner): boolean {
  const grant = caller.api_key;
  if (caller.kind === "api_key") {
    if (!grant || grant.permission_breadth !== "read_write") return false;
    if (grant.scope === "project" && grant.project_id !== owner.projectId) return false;
  }
  if (isSuperAdmin(caller)) return true;
  return caller.memberships.some((m) => m.team_id === owner.teamId && WRITER_ROLES.has(m.role));
}
