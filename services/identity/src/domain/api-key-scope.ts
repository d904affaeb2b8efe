// What an API key may reach and who may issue it. A key reaches its scope and never more than its holder
// (the issuing user, or a service account) could reach: the grant narrows, the holder's memberships bound.
import type { FieldViolation } from "@sca/problem";
import type { ApiKeyGrant, Caller, Membership } from "@sca/rpc";
import { isAdministrator, mayActOnTeam } from "./roles.ts";

export const API_KEY_SCOPES = ["org", "team", "project"] as const;
export type ApiKeyScope = ApiKeyGrant["scope"];
export type PermissionBreadth = ApiKeyGrant["permission_breadth"];

export const KEY_NAME_MAX = 100;
export const KEY_TTL_MAX_DAYS = 1825;

export interface IssueInput {
  name: string;
  scope: string;
  teamId: string | undefined;
  projectId: string | undefined;
  expiresInDays: number | undefined;
  permissionBreadth: string | undefined;
}

export interface IssuePlan {
  name: string;
  scope: ApiKeyScope;
  teamId: string | null;
  projectId: string | null;
  expiresInDays: number | null;
  permissionBreadth: PermissionBreadth;
}

/** Shape rules of an issue request: org takes neither team nor project, team takes a team, project takes both. */
export function planIssue(
  input: IssueInput,
): { ok: true; plan: IssuePlan } | { ok: false; violations: FieldViolation[] } {
  const v: FieldViolation[] = [];
  const name = input.name.trim();
  if (name.length < 1 || name.length > KEY_NAME_MAX)
    v.push({ path: "body.name", message: `must be 1 to ${KEY_NAME_MAX} characters` });
  const scope = (API_KEY_SCOPES as readonly string[]).includes(input.scope) ? (input.scope as ApiKeyScope) : null;
  if (!scope) v.push({ path: "body.scope", message: `must be one of ${API_KEY_SCOPES.join(", ")}` });
  if (scope === "org" && input.teamId)
    v.push({ path: "body.team_id", message: "must be absent for an org-scoped key" });
  if (scope !== "project" && input.projectId)
    v.push({ path: "body.project_id", message: "is only allowed for a project-scoped key" });
  if ((scope === "team" || scope === "project") && !input.teamId)
    v.push({ path: "body.team_id", message: `is required for a ${scope}-scoped key` });
  if (scope === "project" && !input.projectId)
    v.push({ path: "body.project_id", message: "is required for a project-scoped key" });
  const days = input.expiresInDays;
  if (days !== undefined && (!Number.isInteger(days) || days < 1 || days > KEY_TTL_MAX_DAYS)) {
    v.push({ path: "body.expires_in_days", message: `must be a whole number from 1 to ${KEY_TTL_MAX_DAYS}, or null` });
  }
  const breadth = input.permissionBreadth || "read_only";
  if (breadth !== "read_only" && breadth !== "read_write")
    v.push({ path: "body.permission_breadth", message: "must be read_only or read_write" });
  if (v.length || !scope) return { ok: false, violations: v };
  return {
    ok: true,
    plan: {
      name,
      scope,
      teamId: scope === "org" ? null : input.teamId!,
      projectId: scope === "project" ? input.projectId! : null,
      expiresInDays: days ?? null,
      permissionBreadth: breadth as PermissionBreadth,
    },
  };
}

/**
 * Who may issue which scope: org keys super_admin only; team keys team_admin of the team (or above, a
 * group_admin of an ancestor included through the cascade); project keys developer on the owning team,
 * the role that may create projects. Only people issue keys: a key never mints another key.
 */
export function mayIssue(issuer: Caller, scope: ApiKeyScope, teamId: string | null): boolean {
  if (issuer.kind !== "user") return false;
  if (scope === "org") return isAdministrator(issuer);
  return teamId !== null && mayActOnTeam(issuer, teamId, scope === "team" ? "team_admin" : "developer");
}

/**
 * Outside super_admin, a key held by a service account reaches no further than its issuer could: on every team
 * the key covers, the service account's role may not exceed the issuer's. Otherwise a developer could lend
 * themselves the reach of a team_admin service account of their team.
 */
export function serviceAccountWithinIssuer(
  issuer: Caller,
  holderMemberships: readonly Membership[],
  teamsCovered: ReadonlySet<string>,
): boolean {
  if (issuer.is_superuser) return true;
  return holderMemberships.every((m) => !teamsCovered.has(m.team_id) || mayActOnTeam(issuer, m.team_id, m.role));
}

/** Who may see, revoke or narrow a key: its issuer, a team_admin of its team, or a super_admin. */
export function mayManageKey(caller: Caller, key: { createdByUserId: string; teamId: string | null }): boolean {
  if (caller.kind !== "user") return false;
  if (caller.is_superuser || caller.user_id === key.createdByUserId) return true;
  return key.teamId !== null && mayActOnTeam(caller, key.teamId, "team_admin");
}

/** The holder's memberships the key may use: those in its organization, or on teams its scope covers. */
export function membershipsWithinGrant(
  memberships: readonly Membership[],
  grant: ApiKeyGrant,
  teamsCovered: ReadonlySet<string>,
): Membership[] {
  if (grant.scope === "org") return memberships.filter((m) => m.organization_id === grant.organization_id);
  return memberships.filter((m) => teamsCovered.has(m.team_id));
}

/** Narrowing goes one way only: read_write to read_only (narrowing a read_only key is a no-op). */
export function narrowedBreadth(requested: string): PermissionBreadth | null {
  return requested === "read_only" ? "read_only" : null;
}
