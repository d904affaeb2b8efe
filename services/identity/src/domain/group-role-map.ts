// How the deployment's OpenID provider grades people (OIDC_GROUP_ROLE_MAP, DEFAULT_MEMBER_ROLE).
//
// A map entry `payments:developer` means: a person whose groups claim lists `payments` is a developer of the
// portal team whose slug is `payments`. A bare entry (`payments`) is ungraded and takes DEFAULT_MEMBER_ROLE
// (viewer when that is unset). Once the map is set it governs the teams it names: at each sign-in a matched
// person's role there is set to the grade, and a person no longer matched keeps the membership at the lowest
// grade (viewer) rather than their former role. super_admin is never granted this way: it is refused at start-up.
import { isMembershipRole, type MembershipRole } from "./roles.ts";

export const LOWEST_GRADE: MembershipRole = "viewer";

/** Team slug to grade (null: ungraded, DEFAULT_MEMBER_ROLE applies). */
export type GroupRoleMap = ReadonlyMap<string, MembershipRole | null>;

/** Parses `group:grade` pairs separated by commas; throws a message naming the offending entry. */
export function parseGroupRoleMap(raw: string): GroupRoleMap {
  const map = new Map<string, MembershipRole | null>();
  for (const entry of raw
    .split(",")
    .map((e) => e.trim())
    .filter((e) => e.length > 0)) {
    // Group names may themselves hold colons (e.g. LDAP-style names); the grade is after the last one.
    const cut = entry.lastIndexOf(":");
    const group = (cut < 0 ? entry : entry.slice(0, cut)).trim();
    const grade = cut < 0 ? null : entry.slice(cut + 1).trim();
    if (!group) throw new Error(`entry "${entry}" names no group`);
    if (grade === "super_admin")
      throw new Error(`entry "${entry}": super_admin cannot be granted through the identity provider`);
    if (grade !== null && !isMembershipRole(grade)) {
      throw new Error(`entry "${entry}": grade must be one of group_admin, team_admin, developer, viewer`);
    }
    const seen = map.get(group);
    if (map.has(group) && seen !== grade) throw new Error(`group "${group}" is listed twice with different grades`);
    map.set(group, grade);
  }
  return map;
}

/** DEFAULT_MEMBER_ROLE: empty means none; super_admin is refused; any other unrecognised value means viewer. */
export function parseDefaultMemberRole(raw: string): MembershipRole | null {
  const value = raw.trim();
  if (!value) return null;
  if (value === "super_admin") throw new Error("super_admin cannot be a default role");
  return isMembershipRole(value) ? value : LOWEST_GRADE;
}

export interface TeamGrades {
  /** Team slug to the role the person holds there after this sign-in (created when missing). */
  grant: ReadonlyMap<string, MembershipRole>;
  /** Mapped team slugs the person is no longer matched to: an existing membership drops to the lowest grade. */
  lower: readonly string[];
}

/** The memberships a sign-in settles for a person with the given provider groups. */
export function gradeTeams(
  map: GroupRoleMap,
  defaultRole: MembershipRole | null,
  groups: readonly string[],
): TeamGrades {
  const held = new Set(groups);
  const grant = new Map<string, MembershipRole>();
  const lower: string[] = [];
  for (const [team, grade] of map) {
    if (!held.has(team)) {
      lower.push(team);
      continue;
    }
    grant.set(team, grade ?? defaultRole ?? LOWEST_GRADE);
  }
  return { grant, lower };
}
