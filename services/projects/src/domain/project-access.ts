// Who may do what with a project (the spec's Authentication rules and Projects table):
// - read (get, list, export): a member of the owning team in any role; for `organization` visibility also any
//   member of a team of the project's organization; super_admin everything.
// - create and archive: developer or above on the team; update: team_admin or above; super_admin everywhere.
// - An API key reaches no further than its grant: a project key exactly its project, a team key its teams' projects
//   (its memberships are already narrowed to them), an org key its organization's; its memberships bound it too.
// - get, update and archive of a project that does not exist: 404; of one the caller may not read: 403 (the spec's
//   table: "403 not a member; 404 missing"); of one the caller may read but not change: 403.
import { isSuperAdmin, type Caller, type Role } from "@sca/rpc";
import type { Visibility } from "./project-fields.ts";

const RANK: Record<Role, number> = { super_admin: 5, group_admin: 4, team_admin: 3, developer: 2, viewer: 1 };

/** What the rules need of a project. */
export interface ProjectScope {
  id: string;
  teamId: string;
  organizationId: string | null;
  visibility: Visibility;
}

export type Refusal = "forbidden";
export type Decision = { ok: true } | { ok: false; refusal: Refusal };

const ALLOW: Decision = { ok: true };
const FORBID: Decision = { ok: false, refusal: "forbidden" };

export function roleAtLeast(role: Role, minimum: Role): boolean {
  return RANK[role] >= RANK[minimum];
}

/** The caller's effective role on the team (memberships arrive cascaded), or null. */
export function roleOnTeam(caller: Caller, teamId: string): Role | null {
  return caller.memberships.find((m) => m.team_id === teamId)?.role ?? null;
}

/** Whether an API key's grant covers the project (true for callers that are not keys). */
export function grantCovers(caller: Caller, project: ProjectScope): boolean {
  const grant = caller.api_key;
  if (caller.kind !== "api_key" || !grant) return true;
  if (grant.scope === "project") return grant.project_id === project.id;
  if (grant.scope === "team") return caller.memberships.some((m) => m.team_id === project.teamId);
  return grant.organization_id !== null && grant.organization_id === project.organizationId;
}

/** Whether a key's grant lets it create projects in the team: team and org keys may, project keys never. */
function grantAllowsCreate(caller: Caller, teamId: string): boolean {
  const grant = caller.api_key;
  if (caller.kind !== "api_key" || !grant) return true;
  if (grant.scope === "project") return false;
  return caller.memberships.some((m) => m.team_id === teamId);
}

export function mayRead(caller: Caller, project: ProjectScope): boolean {
  if (!grantCovers(caller, project)) return false;
  if (isSuperAdmin(caller)) return true;
  if (roleOnTeam(caller, project.teamId)) return true;
  return (
    project.visibility === "organization" &&
    project.organizationId !== null &&
    caller.memberships.some((m) => m.organization_id === project.organizationId)
  );
}

function mayChange(caller: Caller, project: ProjectScope, minimum: Role): Decision {
  if (!grantCovers(caller, project)) return FORBID;
  if (isSuperAdmin(caller)) return ALLOW;
  const role = roleOnTeam(caller, project.teamId);
  return role && roleAtLeast(role, minimum) ? ALLOW : FORBID;
}

export const mayUpdate = (caller: Caller, project: ProjectScope): Decision => mayChange(caller, project, "team_admin");
export const mayArchive = (caller: Caller, project: ProjectScope): Decision => mayChange(caller, project, "developer");
/** Setting a finding's VEX status: developer or above (docs/findings.md). */
export const mayTriage = (caller: Caller, project: ProjectScope): Decision => mayChange(caller, project, "developer");
/** Importing a VEX document: team_admin (the spec's "vex import: team_admin"). */
export const mayImportVex = (caller: Caller, project: ProjectScope): Decision =>
  mayChange(caller, project, "team_admin");

/**
 * The SBOM signing downloads (endpoints.md, "SBOM signing artifacts"): developer or above on the project's team. A
 * reader who is not on the team is an outsider, shown nothing (404, as for a project it cannot read); a viewer on
 * the team is refused (403).
 */
export function signingAccess(caller: Caller, project: ProjectScope): "allow" | "hide" | "forbid" {
  if (mayChange(caller, project, "developer").ok) return "allow";
  return grantCovers(caller, project) && roleOnTeam(caller, project.teamId) ? "forbid" : "hide";
}

/** Waiving a flagged malicious package for the project: team_admin (docs/enrichment-feeds.md, "Waivers"). */
export const mayWaiveMalicious = (caller: Caller, project: ProjectScope): Decision =>
  mayChange(caller, project, "team_admin");

/** Creating a project in `teamId`: developer or above there (super_admin anywhere). */
export function mayCreate(caller: Caller, teamId: string): boolean {
  if (!grantAllowsCreate(caller, teamId)) return false;
  if (isSuperAdmin(caller)) return true;
  const role = roleOnTeam(caller, teamId);
  return role !== null && roleAtLeast(role, "developer");
}

/** Which rows a list may show the caller: every row, or those of these teams and organizations (and this project). */
export type ListScope =
  { kind: "all" } | { kind: "some"; teamIds: string[]; organizationIds: string[]; onlyProjectId: string | null };

export function listScope(caller: Caller): ListScope {
  if (isSuperAdmin(caller)) return { kind: "all" };
  const grant = caller.kind === "api_key" ? caller.api_key : null;
  const teamIds = [...new Set(caller.memberships.map((m) => m.team_id))];
  // A key sees organization-visible projects only within its own organization grant.
  const organizationIds =
    grant && grant.scope !== "org"
      ? []
      : [...new Set(caller.memberships.map((m) => m.organization_id).filter((o): o is string => o !== null))].filter(
          (o) => !grant || o === grant.organization_id,
        );
  return {
    kind: "some",
    teamIds,
    organizationIds,
    onlyProjectId: grant?.scope === "project" ? grant.project_id : null,
  };
}
