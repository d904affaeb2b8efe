// Teams (groups), their hierarchy and their memberships: the one module that reads or writes `groups` and
// `memberships` (docs/adr/0005). Authorization and rules live in rpc/ and domain/.
import { randomUUID } from "node:crypto";
import { raw, type EntityManager } from "@mikro-orm/postgresql";
import { column, containsPattern, rawQuery, SNAPSHOT } from "@sca/db";
import type { Membership as CallerMembership } from "@sca/rpc";
import { accountsByIds, type AccountRow } from "./accounts.ts";
import { Group, type GroupRow } from "./entities/group.ts";
import { Membership } from "./entities/membership.ts";

export type TeamRow = GroupRow;

/** A direct member of a team, as the team view shows it. */
export interface TeamMemberRow extends Pick<AccountRow, "email" | "fullName"> {
  groupId: string;
  userId: string;
  role: string;
  createdAt: Date;
}

/** A user's direct membership, as the user views show it. */
export interface MembershipRow {
  teamId: string;
  teamName: string;
  teamSlug: string;
  organizationId: string | null;
  role: string;
  createdAt: Date;
}

export async function teamById(em: EntityManager, id: string): Promise<TeamRow | null> {
  return em.findOne(Group, { id }, SNAPSHOT);
}

export async function listTeams(
  em: EntityManager,
  search: string,
  limit: number,
  offset: number,
): Promise<{ rows: TeamRow[]; total: number }> {
  const where = search
    ? { $or: [{ name: { $ilike: containsPattern(search) } }, { slug: { $ilike: containsPattern(search) } }] }
    : {};
  const [rows, total] = await em.findAndCount(Group, where, {
    ...SNAPSHOT,
    orderBy: { name: "asc", id: "asc" },
    limit,
    offset,
  });
  return { rows, total };
}

/** Direct members of the given teams, oldest first. */
export async function membersOf(em: EntityManager, teamIds: readonly string[]): Promise<Map<string, TeamMemberRow[]>> {
  const byTeam = new Map<string, TeamMemberRow[]>(teamIds.map((id) => [id, []]));
  if (teamIds.length === 0) return byTeam;
  const memberships = await em.find(
    Membership,
    { groupId: { $in: [...teamIds] } },
    { ...SNAPSHOT, orderBy: { createdAt: "asc", id: "asc" } },
  );
  const users = await accountsByIds(
    em,
    memberships.map((m) => m.userId),
  );
  for (const m of memberships) {
    const user = users.get(m.userId);
    if (!user) continue; // removed between the two reads
    byTeam.get(m.groupId)?.push({
      groupId: m.groupId,
      userId: m.userId,
      email: user.email,
      fullName: user.fullName,
      role: m.role,
      createdAt: m.createdAt,
    });
  }
  return byTeam;
}

/** Direct memberships of a team holding one of `roles`, oldest first. */
export async function membershipsWithRoles(
  em: EntityManager,
  teamId: string,
  roles: readonly string[],
): Promise<{ userId: string; role: string }[]> {
  if (roles.length === 0) return [];
  const rows = await em.find(
    Membership,
    { groupId: teamId, role: { $in: [...roles] } },
    { ...SNAPSHOT, orderBy: { createdAt: "asc", id: "asc" } },
  );
  return rows.map((m) => ({ userId: m.userId, role: m.role }));
}

/** Direct memberships of each user, oldest first. */
export async function membershipsOf(
  em: EntityManager,
  userIds: readonly string[],
): Promise<Map<string, MembershipRow[]>> {
  const out = new Map<string, MembershipRow[]>(userIds.map((id) => [id, []]));
  if (userIds.length === 0) return out;
  const memberships = await em.find(
    Membership,
    { userId: { $in: [...userIds] } },
    { ...SNAPSHOT, orderBy: { createdAt: "asc", id: "asc" } },
  );
  const groups = await groupsByIds(
    em,
    memberships.map((m) => m.groupId),
  );
  for (const m of memberships) {
    const g = groups.get(m.groupId);
    if (!g) continue; // removed between the two reads
    out.get(m.userId)!.push({
      teamId: g.id,
      teamName: g.name,
      teamSlug: g.slug,
      organizationId: g.organizationId,
      role: m.role,
      createdAt: m.createdAt,
    });
  }
  return out;
}

async function groupsByIds(em: EntityManager, ids: readonly string[]): Promise<Map<string, TeamRow>> {
  if (ids.length === 0) return new Map();
  const rows = await em.find(Group, { id: { $in: [...new Set(ids)] } }, SNAPSHOT);
  return new Map(rows.map((g) => [g.id, g]));
}

/**
 * The user's memberships, and with cascade those inherited by every subgroup below (a recursive query, so
 * through rawQuery); one row per (group, role) reached. The strongest role per group is the caller's to choose.
 */
export async function membershipsReached(
  em: EntityManager,
  userId: string,
  cascade: boolean,
): Promise<{ groupId: string; organizationId: string | null; role: CallerMembership["role"] }[]> {
  if (!cascade) {
    const memberships = await em.find(Membership, { userId }, SNAPSHOT);
    const groups = await groupsByIds(
      em,
      memberships.map((m) => m.groupId),
    );
    return memberships.flatMap((m) => {
      const g = groups.get(m.groupId);
      return g
        ? [{ groupId: m.groupId, organizationId: g.organizationId, role: m.role as CallerMembership["role"] }]
        : [];
    });
  }
  const rows = await rawQuery(
    em,
    `with recursive reach(group_id, role) as (
       select m.group_id, m.role from memberships m where m.user_id = ?
       union
       select g.id, r.role from groups g join reach r on g.parent_group_id = r.group_id)
     select r.group_id, g.organization_id, r.role from reach r join groups g on g.id = r.group_id`,
    [userId],
    { groupId: column.text, organizationId: column.text.nullable, role: column.text },
  );
  return rows.map((r) => ({ ...r, role: r.role as CallerMembership["role"] }));
}

export interface NewTeam {
  name: string;
  slug: string;
  description: string | null;
  organizationId: string;
  parentGroupId: string | null;
}

/** The new team, or null when the slug is taken in the organization. */
export async function insertTeam(em: EntityManager, t: NewTeam): Promise<TeamRow | null> {
  const id = randomUUID();
  const inserted = await em
    .createQueryBuilder(Group)
    .insert({
      id,
      organizationId: t.organizationId,
      parentGroupId: t.parentGroupId,
      name: t.name,
      slug: t.slug,
      description: t.description,
    })
    .onConflict()
    .ignore()
    .execute<{ affectedRows: number }>("run");
  return inserted.affectedRows === 0 ? null : teamById(em, id);
}

export interface TeamChanges {
  name?: string;
  slug?: string;
  description?: string | null;
}

/** The updated team; null when another team of the organization already has the slug (or the team is gone). */
export async function updateTeam(em: EntityManager, id: string, c: TeamChanges): Promise<TeamRow | null> {
  const team = await teamById(em, id);
  if (!team) return null;
  if (
    c.slug !== undefined &&
    (await em.count(Group, { id: { $ne: id }, slug: c.slug, organizationId: team.organizationId })) > 0
  )
    return null;
  const changes = Object.fromEntries(Object.entries(c).filter(([, v]) => v !== undefined)) as TeamChanges;
  await em.nativeUpdate(Group, { id }, { ...changes, updatedAt: raw("now()") });
  return teamById(em, id);
}

export async function hasSubteams(em: EntityManager, id: string): Promise<boolean> {
  return (await em.count(Group, { parentGroupId: id })) > 0;
}

export async function deleteTeam(em: EntityManager, id: string): Promise<void> {
  await em.nativeDelete(Group, { id });
}

/** The team's ancestors, nearest first. */
export async function ancestorsOf(em: EntityManager, id: string): Promise<string[]> {
  const rows = await rawQuery(
    em,
    `with recursive up(id, parent, depth) as (
       select id, parent_group_id, 0 from groups where id = ?
       union all
       select g.id, g.parent_group_id, up.depth + 1 from groups g join up on g.id = up.parent)
     select id from up where depth > 0 order by depth`,
    [id],
    { id: column.text },
  );
  return rows.map((r) => r.id);
}

/** The team and every team below it. */
export async function subtreeOf(em: EntityManager, id: string): Promise<string[]> {
  const rows = await rawQuery(
    em,
    `with recursive down(id) as (
       select id from groups where id = ?
       union
       select g.id from groups g join down on g.parent_group_id = down.id)
     select id from down`,
    [id],
    { id: column.text },
  );
  return rows.map((r) => r.id);
}

export async function setParent(em: EntityManager, id: string, parentId: string | null): Promise<TeamRow | null> {
  await em.nativeUpdate(Group, { id }, { parentGroupId: parentId, updatedAt: raw("now()") });
  return teamById(em, id);
}

/**
 * Serializes changes of the tree's shape for the rest of the transaction: two concurrent moves could each
 * pass the cycle check and together close a loop.
 */
export async function lockGroupTree(em: EntityManager): Promise<void> {
  await rawQuery(em, "select pg_advisory_xact_lock(hashtext('identity.group-tree'))");
}

/** Adds the membership or changes its role. */
export async function upsertMembership(em: EntityManager, teamId: string, userId: string, role: string): Promise<void> {
  await em
    .createQueryBuilder(Membership)
    .insert({ id: randomUUID(), userId, groupId: teamId, role })
    .onConflict(["userId", "groupId"])
    .merge(["role"])
    .execute("run");
}

/** Sets the role on every team with one of these slugs (in any organization); a slug naming no team grants nothing. */
export async function grantRoleBySlug(em: EntityManager, userId: string, slug: string, role: string): Promise<void> {
  for (const team of await em.find(Group, { slug }, { ...SNAPSHOT, fields: ["id"] }))
    await upsertMembership(em, team.id, userId, role);
}

/** Lowers the user's existing memberships on teams with these slugs to `role`. */
export async function lowerRolesBySlug(
  em: EntityManager,
  userId: string,
  slugs: readonly string[],
  role: string,
): Promise<void> {
  if (slugs.length === 0) return;
  const teams = await em.find(Group, { slug: { $in: [...slugs] } }, { ...SNAPSHOT, fields: ["id"] });
  if (teams.length === 0) return;
  await em.nativeUpdate(
    Membership,
    { userId, groupId: { $in: teams.map((t) => t.id) }, role: { $ne: role } },
    { role },
  );
}

/** Whether a membership was there to remove. */
export async function deleteMembership(em: EntityManager, teamId: string, userId: string): Promise<boolean> {
  return (await em.nativeDelete(Membership, { groupId: teamId, userId })) > 0;
}

export async function isMemberOf(em: EntityManager, userId: string, teamId: string): Promise<boolean> {
  return (await em.count(Membership, { userId, groupId: teamId })) > 0;
}

/** Teams by id, each with the names of the groups from the top of its tree down to it (itself included). */
export async function teamsWithPaths(
  em: EntityManager,
  ids: readonly string[],
): Promise<{ team: TeamRow; path: string[] }[]> {
  if (ids.length === 0) return [];
  const teams = await em.find(Group, { id: { $in: [...new Set(ids)] } }, SNAPSHOT);
  if (teams.length === 0) return [];
  const steps = await rawQuery(
    em,
    `with recursive up(start, id, parent, name, depth) as (
       select id, id, parent_group_id, name, 0 from groups where id = any(?::uuid[])
       union all
       select up.start, g.id, g.parent_group_id, g.name, up.depth + 1 from groups g join up on g.id = up.parent)
     select start, name from up order by start, depth desc`,
    [`{${teams.map((t) => t.id).join(",")}}`],
    { start: column.text, name: column.text },
  );
  const paths = new Map<string, string[]>();
  for (const s of steps) paths.set(s.start, [...(paths.get(s.start) ?? []), s.name]);
  return teams.map((team) => ({ team, path: paths.get(team.id) ?? [team.name] }));
}
