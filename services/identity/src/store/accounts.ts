// The users table: accounts of people and service accounts. The one module that reads or writes `users`
// (docs/adr/0005); sign-in, SSO, the directory and API keys call it.
import { randomUUID } from "node:crypto";
import { LockMode, raw, type EntityManager, type FilterQuery } from "@mikro-orm/postgresql";
import { containsPattern, rawQuery, SNAPSHOT } from "@sca/db";
import { User, type UserRow } from "./entities/user.ts";

export type AccountRow = UserRow;

export async function accountByEmail(em: EntityManager, email: string): Promise<AccountRow | null> {
  return em.findOne(User, { email }, SNAPSHOT);
}

export async function accountById(em: EntityManager, id: string): Promise<AccountRow | null> {
  return em.findOne(User, { id }, SNAPSHOT);
}

export async function accountsByIds(em: EntityManager, ids: readonly string[]): Promise<Map<string, AccountRow>> {
  if (ids.length === 0) return new Map();
  const rows = await em.find(User, { id: { $in: [...new Set(ids)] } }, SNAPSHOT);
  return new Map(rows.map((r) => [r.id, r]));
}

/** The account, its row locked until the transaction ends (run inside em.transactional). */
export async function lockAccount(em: EntityManager, id: string): Promise<AccountRow | null> {
  return em.findOne(User, { id }, { ...SNAPSHOT, lockMode: LockMode.PESSIMISTIC_WRITE });
}

export interface NewAccount {
  email: string;
  fullName: string | null;
  passwordHash: string | null;
  isSuperuser?: boolean;
  isServiceAccount?: boolean;
}

/** The new account, or null when the address is taken (the unique index decides, so races are safe). */
export async function insertAccount(em: EntityManager, a: NewAccount): Promise<AccountRow | null> {
  const id = randomUUID();
  const inserted = await em
    .createQueryBuilder(User)
    .insert({
      id,
      email: a.email,
      fullName: a.fullName,
      passwordHash: a.passwordHash,
      isSuperuser: a.isSuperuser ?? false,
      isServiceAccount: a.isServiceAccount ?? false,
    })
    .onConflict("email")
    .ignore()
    .execute<{ affectedRows: number }>("run");
  return inserted.affectedRows === 0 ? null : accountById(em, id);
}

/** A service account: a user without a password that never signs in; its address is a reserved placeholder. */
export async function insertServiceAccount(em: EntityManager, name: string): Promise<AccountRow> {
  const id = randomUUID();
  await em.insert(User, {
    id,
    email: `service-account-${id}@service-accounts.invalid`,
    fullName: name,
    passwordHash: null,
    isServiceAccount: true,
  });
  return (await accountById(em, id))!;
}

export async function setPasswordHash(em: EntityManager, userId: string, passwordHash: string): Promise<void> {
  await em.nativeUpdate(User, { id: userId }, { passwordHash, updatedAt: raw("now()") });
}

/** One more scan the person asked for (no row for an id that is no account's). updated_at stays. */
export async function countScanOf(em: EntityManager, userId: string): Promise<void> {
  await em.nativeUpdate(User, { id: userId }, { scanCount: raw("scan_count + 1") });
}

export async function recordSignIn(em: EntityManager, userId: string, at: Date): Promise<void> {
  await em.nativeUpdate(User, { id: userId }, { lastLoginAt: at });
}

export async function setActive(em: EntityManager, userId: string, active: boolean): Promise<AccountRow | null> {
  await em.nativeUpdate(User, { id: userId }, { isActive: active, updatedAt: raw("now()") });
  return accountById(em, userId);
}

export async function setMfaEnabled(em: EntityManager, userId: string, enabled: boolean): Promise<void> {
  await em.nativeUpdate(User, { id: userId }, { mfaEnabled: enabled, updatedAt: raw("now()") });
}

export async function setSuperuser(em: EntityManager, userId: string, value: boolean): Promise<void> {
  await em.nativeUpdate(User, { id: userId }, { isSuperuser: value, updatedAt: raw("now()") });
}

/** The bootstrap's promotion of an existing account: super_admin and active, its password kept. */
export async function promoteToSuperAdmin(em: EntityManager, userId: string): Promise<void> {
  await em.nativeUpdate(User, { id: userId }, { isSuperuser: true, isActive: true, updatedAt: raw("now()") });
}

export async function anySuperAdmin(em: EntityManager): Promise<boolean> {
  return (await em.count(User, { isSuperuser: true, isActive: true })) > 0;
}

export async function activeSuperAdminCount(em: EntityManager): Promise<number> {
  return em.count(User, { isSuperuser: true, isActive: true, isServiceAccount: false });
}

/** The ids of the active super_admins (people, not service accounts). */
export async function activeSuperAdminIds(em: EntityManager): Promise<string[]> {
  const rows = await em.find(
    User,
    { isSuperuser: true, isActive: true, isServiceAccount: false },
    { ...SNAPSHOT, fields: ["id"], orderBy: { id: "asc" } },
  );
  return rows.map((r) => r.id);
}

export async function isActiveServiceAccount(em: EntityManager, userId: string): Promise<boolean> {
  return (await em.count(User, { id: userId, isServiceAccount: true, isActive: true })) > 0;
}

/**
 * Takes the lock every change of the set of super_admins holds until commit, so that two concurrent
 * demotions cannot each see the other as the remaining super_admin.
 */
export async function lockSuperAdmins(em: EntityManager): Promise<void> {
  await rawQuery(em, "select pg_advisory_xact_lock(hashtext('identity.super-admins'))");
}

/** One bootstrap of the first super_admin at a time, even when two start together. */
export async function lockBootstrap(em: EntityManager): Promise<void> {
  await rawQuery(em, "select pg_advisory_xact_lock(hashtext('identity.bootstrap-admin'))");
}

export interface AccountFilter {
  q: string;
  isActive?: boolean;
  isSuperuser?: boolean;
  mfaEnabled?: boolean;
}

export async function listAccounts(
  em: EntityManager,
  f: AccountFilter,
  limit: number,
  offset: number,
): Promise<{ rows: AccountRow[]; total: number }> {
  const where: FilterQuery<AccountRow> = {};
  if (f.q) where.$or = [{ email: { $ilike: containsPattern(f.q) } }, { fullName: { $ilike: containsPattern(f.q) } }];
  if (f.isActive !== undefined) where.isActive = f.isActive;
  if (f.isSuperuser !== undefined) where.isSuperuser = f.isSuperuser;
  if (f.mfaEnabled !== undefined) where.mfaEnabled = f.mfaEnabled;
  const [rows, total] = await em.findAndCount(User, where, {
    ...SNAPSHOT,
    orderBy: { createdAt: "asc", id: "asc" },
    limit,
    offset,
  });
  return { rows, total };
}
