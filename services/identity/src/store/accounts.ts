// Users as accounts: sign-in lookups, registration, activation, password changes, and the me/admin views.
import { randomUUID } from "node:crypto";
import type { EntityManager } from "@mikro-orm/postgresql";
import { query, withDates } from "./raw-sql.ts";

export interface AccountRow {
  id: string;
  email: string;
  full_name: string | null;
  password_hash: string | null;
  is_active: boolean;
  is_superuser: boolean;
  is_service_account: boolean;
  mfa_enabled: boolean;
  last_login_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface MembershipRow {
  team_id: string;
  team_name: string;
  team_slug: string;
  organization_id: string | null;
  role: string;
  created_at: Date;
}

const account = (r: AccountRow): AccountRow => withDates(r, "last_login_at", "created_at", "updated_at");

const COLUMNS = "id, email, full_name, password_hash, is_active, is_superuser, is_service_account, mfa_enabled, last_login_at, created_at, updated_at";

export async function accountByEmail(em: EntityManager, email: string): Promise<AccountRow | null> {
  const [row] = await query<AccountRow>(em, `select ${COLUMNS} from users where email = ?`, [email]);
  return row ? account(row) : null;
}

export async function accountById(em: EntityManager, id: string): Promise<AccountRow | null> {
  const [row] = await query<AccountRow>(em, `select ${COLUMNS} from users where id = ?`, [id]);
  return row ? account(row) : null;
}

/** The new account, or null when the address is taken (the unique index decides, so races are safe). */
export async function insertAccount(em: EntityManager, a: { email: string; fullName: string | null; passwordHash: string; isSuperuser?: boolean }): Promise<AccountRow | null> {
  const [row] = await query<AccountRow>(em,
    `insert into users (id, email, full_name, password_hash, is_superuser) values (?, ?, ?, ?, ?)
     on conflict (email) do nothing returning ${COLUMNS}`,
    [randomUUID(), a.email, a.fullName, a.passwordHash, a.isSuperuser ?? false]);
  return row ? account(row) : null;
}

export async function setPasswordHash(em: EntityManager, userId: string, passwordHash: string): Promise<void> {
  await query(em, "update users set password_hash = ?, updated_at = now() where id = ?", [passwordHash, userId]);
}

export async function recordSignIn(em: EntityManager, userId: string, at: Date): Promise<void> {
  await query(em, "update users set last_login_at = ? where id = ?", [at, userId]);
}

export async function setActive(em: EntityManager, userId: string, active: boolean): Promise<AccountRow | null> {
  const [row] = await query<AccountRow>(em,
    `update users set is_active = ?, updated_at = now() where id = ? returning ${COLUMNS}`, [active, userId]);
  return row ? account(row) : null;
}

export async function setMfaEnabled(em: EntityManager, userId: string, enabled: boolean): Promise<void> {
  await query(em, "update users set mfa_enabled = ?, updated_at = now() where id = ?", [enabled, userId]);
}

export async function anySuperAdmin(em: EntityManager): Promise<boolean> {
  const rows = await query(em, "select 1 from users where is_superuser and is_active limit 1");
  return rows.length > 0;
}

/** Direct memberships of each user, oldest first. */
export async function membershipsOf(em: EntityManager, userIds: string[]): Promise<Map<string, MembershipRow[]>> {
  const out = new Map<string, MembershipRow[]>(userIds.map((id) => [id, []]));
  if (userIds.length === 0) return out;
  const rows = await query<MembershipRow & { user_id: string }>(em,
    `select m.user_id, m.group_id as team_id, g.name as team_name, g.slug as team_slug, g.organization_id, m.role, m.created_at
     from memberships m join groups g on g.id = m.group_id
     where m.user_id in (${userIds.map(() => "?").join(", ")}) order by m.created_at, m.id`, userIds);
  for (const r of rows) out.get(r.user_id)!.push(withDates(r, "created_at"));
  return out;
}

export interface AccountFilter { q: string; isActive?: boolean; isSuperuser?: boolean; mfaEnabled?: boolean }

export async function listAccounts(em: EntityManager, f: AccountFilter, limit: number, offset: number): Promise<{ rows: AccountRow[]; total: number }> {
  const where: string[] = [];
  const params: unknown[] = [];
  if (f.q) {
    where.push("(email ilike ? or full_name ilike ?)");
    const like = `%${f.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    params.push(like, like);
  }
  if (f.isActive !== undefined) { where.push("is_active = ?"); params.push(f.isActive); }
  if (f.isSuperuser !== undefined) { where.push("is_superuser = ?"); params.push(f.isSuperuser); }
  if (f.mfaEnabled !== undefined) { where.push("mfa_enabled = ?"); params.push(f.mfaEnabled); }
  const clause = where.length ? `where ${where.join(" and ")}` : "";
  const [count] = await query<{ n: number }>(em, `select count(*)::int as n from users ${clause}`, params);
  const rows = await query<AccountRow>(em,
    `select ${COLUMNS} from users ${clause} order by created_at, id limit ? offset ?`, [...params, limit, offset]);
  return { rows: rows.map(account), total: count!.n };
}
