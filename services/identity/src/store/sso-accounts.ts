// The account side of an SSO sign-in: finding the person's account, registering a passwordless one, and
// settling the memberships the deployment's identity provider grades (see domain/group-role-map.ts).
import { randomUUID } from "node:crypto";
import type { EntityManager } from "@mikro-orm/postgresql";
import type { KnownAccount } from "../domain/sso-account.ts";
import type { TeamGrades } from "../domain/group-role-map.ts";
import { LOWEST_GRADE } from "../domain/group-role-map.ts";
import { query } from "./raw-sql.ts";

interface AccountFlags { id: string; is_active: boolean; is_service_account: boolean }

const known = (row: AccountFlags | undefined): KnownAccount | null =>
  row ? { userId: row.id, isActive: row.is_active, isServiceAccount: row.is_service_account } : null;

export async function knownAccountById(em: EntityManager, userId: string): Promise<KnownAccount | null> {
  const [row] = await query<AccountFlags>(em, "select id, is_active, is_service_account from users where id = ?", [userId]);
  return known(row);
}

export async function knownAccountByEmail(em: EntityManager, email: string): Promise<KnownAccount | null> {
  const [row] = await query<AccountFlags>(em, "select id, is_active, is_service_account from users where email = ?", [email]);
  return known(row);
}

/** A new account without a password; null when the address was taken meanwhile. */
export async function registerSsoAccount(em: EntityManager, a: { email: string; fullName: string | null }): Promise<string | null> {
  const [row] = await query<{ id: string }>(em,
    "insert into users (id, email, full_name, password_hash) values (?, ?, ?, null) on conflict (email) do nothing returning id",
    [randomUUID(), a.email, a.fullName]);
  return row?.id ?? null;
}

/**
 * Applies the grades of one sign-in: every team whose slug is granted gets (or keeps) a membership with that
 * role; on teams the person is no longer matched to, an existing membership drops to the lowest grade.
 * Teams are matched by slug in every organization; a slug naming no team grants nothing.
 */
export async function applyTeamGrades(em: EntityManager, userId: string, grades: TeamGrades): Promise<void> {
  for (const [slug, role] of grades.grant) {
    await query(em,
      `insert into memberships (id, user_id, group_id, role)
       select gen_random_uuid(), ?, g.id, ? from groups g where g.slug = ?
       on conflict (user_id, group_id) do update set role = excluded.role`,
      [userId, role, slug]);
  }
  if (grades.lower.length > 0) {
    await query(em,
      `update memberships m set role = ? from groups g
       where g.id = m.group_id and m.user_id = ? and m.role <> ? and g.slug in (${grades.lower.map(() => "?").join(", ")})`,
      [LOWEST_GRADE, userId, LOWEST_GRADE, ...grades.lower]);
  }
}
