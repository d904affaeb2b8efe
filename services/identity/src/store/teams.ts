// Teams (groups) and their hierarchy, as rows. Authorization and rules live in rpc/ and domain/.
import { randomUUID } from "node:crypto";
import type { EntityManager } from "@mikro-orm/postgresql";
import { uuidArray } from "./uuid-array.ts";

export interface TeamRow {
  id: string;
  name: string;
  slug: string;
  description: string | null;
  organization_id: string | null;
  parent_group_id: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface TeamMemberRow {
  group_id: string;
  user_id: string;
  email: string;
  full_name: string | null;
  role: string;
  created_at: Date;
}

const TEAM_COLUMNS = "id, name, slug, description, organization_id, parent_group_id, created_at, updated_at";

export async function teamById(em: EntityManager, id: string): Promise<TeamRow | null> {
  const [row] = await em.execute<TeamRow[]>(`select ${TEAM_COLUMNS} from groups where id = ?`, [id]);
  return row ?? null;
}

export async function listTeams(em: EntityManager, search: string, limit: number, offset: number): Promise<{ rows: TeamRow[]; total: number }> {
  const pattern = `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const where = search ? "where name ilike ? or slug ilike ?" : "";
  const params = search ? [pattern, pattern] : [];
  const [count] = await em.execute<{ n: number }[]>(`select count(*)::int as n from groups ${where}`, params);
  const rows = await em.execute<TeamRow[]>(
    `select ${TEAM_COLUMNS} from groups ${where} order by name, id limit ? offset ?`, [...params, limit, offset]);
  return { rows, total: count?.n ?? 0 };
}

/** Direct members of the given teams, oldest first. */
export async function membersOf(em: EntityManager, teamIds: readonly string[]): Promise<Map<string, TeamMemberRow[]>> {
  const byTeam = new Map<string, TeamMemberRow[]>(teamIds.map((id) => [id, []]));
  if (teamIds.length === 0) return byTeam;
  const rows = await em.execute<TeamMemberRow[]>(
    `select m.group_id, m.user_id, u.email, u.full_name, m.role, m.created_at
       from memberships m join users u on u.id = m.user_id
      where m.group_id = any(?::uuid[]) order by m.created_at, m.id`, [uuidArray(teamIds)]);
  for (const r of rows) byTeam.get(r.group_id)?.push(r);
  return byTeam;
}

export interface NewTeam { name: string; slug: string; description: string | null; organizationId: string; parentGroupId: string | null }

/** The new team, or null when the slug is taken in the organization. */
export async function insertTeam(em: EntityManager, t: NewTeam): Promise<TeamRow | null> {
  const [row] = await em.execute<TeamRow[]>(
    `insert into groups (id, organization_id, parent_group_id, name, slug, description)
     values (?, ?, ?, ?, ?, ?) on conflict do nothing returning ${TEAM_COLUMNS}`,
    [randomUUID(), t.organizationId, t.parentGroupId, t.name, t.slug, t.description]);
  return row ?? null;
}

export interface TeamChanges { name?: string; slug?: string; description?: string | null }

/** The updated team; null when another team of the organization already has the slug. */
export async function updateTeam(em: EntityManager, id: string, c: TeamChanges): Promise<TeamRow | null> {
  const sets: string[] = [];
  const params: unknown[] = [];
  for (const [column, value] of [["name", c.name], ["slug", c.slug], ["description", c.description]] as const) {
    if (value !== undefined) { sets.push(`${column} = ?`); params.push(value); }
  }
  if (c.slug !== undefined) {
    const [clash] = await em.execute<{ id: string }[]>(
      `select g.id from groups g join groups me on me.id = ?
        where g.id <> me.id and g.slug = ? and g.organization_id is not distinct from me.organization_id`, [id, c.slug]);
    if (clash) return null;
  }
  const [row] = await em.execute<TeamRow[]>(
    `update groups set ${[...sets, "updated_at = now()"].join(", ")} where id = ? returning ${TEAM_COLUMNS}`, [...params, id]);
  return row ?? null;
}

export async function hasSubteams(em: EntityManager, id: string): Promise<boolean> {
  const [row] = await em.execute<{ n: number }[]>("select count(*)::int as n from groups where parent_group_id = ?", [id]);
  return (row?.n ?? 0) > 0;
}

export async function deleteTeam(em: EntityManager, id: string): Promise<void> {
  await em.execute("delete from groups where id = ?", [id]);
}

/** The team's ancestors, nearest first. */
export async function ancestorsOf(em: EntityManager, id: string): Promise<string[]> {
  const rows = await em.execute<{ id: string }[]>(
    `with recursive up(id, parent, depth) as (
       select id, parent_group_id, 0 from groups where id = ?
       union all
       select g.id, g.parent_group_id, up.depth + 1 from groups g join up on g.id = up.parent)
     select id from up where depth > 0 order by depth`, [id]);
  return rows.map((r) => r.id);
}

/** The team and every team below it. */
export async function subtreeOf(em: EntityManager, id: string): Promise<string[]> {
  const rows = await em.execute<{ id: string }[]>(
    `with recursive down(id) as (
       select id from groups where id = ?
       union
       select g.id from groups g join down on g.parent_group_id = down.id)
     select id from down`, [id]);
  return rows.map((r) => r.id);
}

export async function setParent(em: EntityManager, id: string, parentId: string | null): Promise<TeamRow | null> {
  const [row] = await em.execute<TeamRow[]>(
    `update groups set parent_group_id = ?, updated_at = now() where id = ? returning ${TEAM_COLUMNS}`, [parentId, id]);
  return row ?? null;
}

/**
 * Serializes changes of the tree's shape for the rest of the transaction: two concurrent moves could each
 * pass the cycle check and together close a loop.
 */
export async function lockGroupTree(em: EntityManager): Promise<void> {
  await em.execute("select pg_advisory_xact_lock(hashtext('identity.group-tree'))");
}

/** Adds the membership or changes its role. */
export async function upsertMembership(em: EntityManager, teamId: string, userId: string, role: string): Promise<void> {
  await em.execute(
    `insert into memberships (id, user_id, group_id, role) values (?, ?, ?, ?)
     on conflict (user_id, group_id) do update set role = excluded.role`, [randomUUID(), userId, teamId, role]);
}

/** Whether a membership was there to remove. */
export async function deleteMembership(em: EntityManager, teamId: string, userId: string): Promise<boolean> {
  const rows = await em.execute<{ id: string }[]>(
    "delete from memberships where group_id = ? and user_id = ? returning id", [teamId, userId]);
  return rows.length > 0;
}

export async function isMemberOf(em: EntityManager, userId: string, teamId: string): Promise<boolean> {
  const [row] = await em.execute<{ id: string }[]>("select id from memberships where user_id = ? and group_id = ?", [userId, teamId]);
  return row !== undefined;
}
