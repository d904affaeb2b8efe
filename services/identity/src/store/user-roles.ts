// The super_admin flag, guarded so that an active super_admin always remains, and the user view answered
// after a role change.
import { randomUUID } from "node:crypto";
import type { EntityManager } from "@mikro-orm/postgresql";
import { withDates } from "./raw-sql.ts";

export interface DirectoryUserRow {
  id: string;
  email: string;
  full_name: string | null;
  is_active: boolean;
  is_superuser: boolean;
  mfa_enabled: boolean;
  last_login_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const USER_COLUMNS = "id, email, full_name, is_active, is_superuser, mfa_enabled, last_login_at, created_at, updated_at";
const directoryUser = (r: DirectoryUserRow): DirectoryUserRow => withDates(r, "last_login_at", "created_at", "updated_at");

/**
 * Takes the lock every change of the set of super_admins holds until commit, so that two concurrent
 * demotions cannot each see the other as the remaining super_admin.
 */
export async function lockSuperAdmins(em: EntityManager): Promise<void> {
  await em.execute("select pg_advisory_xact_lock(hashtext('identity.super-admins'))");
}

export async function activeSuperAdminCount(em: EntityManager): Promise<number> {
  const [row] = await em.execute<{ n: number }[]>(
    "select count(*)::int as n from users where is_superuser and is_active and not is_service_account");
  return row?.n ?? 0;
}

export async function setSuperuser(em: EntityManager, userId: string, value: boolean): Promise<void> {
  await em.execute("update users set is_superuser = ?, updated_at = now() where id = ?", [value, userId]);
}

/** A service account: a user without a password that never signs in; its address is a reserved placeholder. */
export async function insertServiceAccount(em: EntityManager, name: string): Promise<DirectoryUserRow> {
  const id = randomUUID();
  const [row] = await em.execute<DirectoryUserRow[]>(
    `insert into users (id, email, full_name, password_hash, is_service_account)
     values (?, ?, ?, null, true) returning ${USER_COLUMNS}`, [id, `service-account-${id}@service-accounts.invalid`, name]);
  return directoryUser(row!);
}

export async function isActiveServiceAccount(em: EntityManager, userId: string): Promise<boolean> {
  const [row] = await em.execute<{ ok: boolean }[]>(
    "select (is_service_account and is_active) as ok from users where id = ?", [userId]);
  return row?.ok === true;
}
