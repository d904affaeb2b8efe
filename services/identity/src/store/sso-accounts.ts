// The account side of an SSO sign-in: finding the person's account, registering a passwordless one, and
// settling the memberships the deployment's identity provider grades (see domain/group-role-map.ts). The rows
// are the accounts' and the teams' stores'; this module only composes them.
import type { EntityManager } from "@mikro-orm/postgresql";
import type { KnownAccount } from "../domain/sso-account.ts";
import type { TeamGrades } from "../domain/group-role-map.ts";
import { LOWEST_GRADE } from "../domain/group-role-map.ts";
import { accountByEmail, accountById, insertAccount, type AccountRow } from "./accounts.ts";
import { grantRoleBySlug, lowerRolesBySlug } from "./teams.ts";

const known = (row: AccountRow | null): KnownAccount | null =>
  row ? { userId: row.id, isActive: row.isActive, isServiceAccount: row.isServiceAccount } : null;

export async function knownAccountById(em: EntityManager, userId: string): Promise<KnownAccount | null> {
  return known(await accountById(em, userId));
}

export async function knownAccountByEmail(em: EntityManager, email: string): Promise<KnownAccount | null> {
  return known(await accountByEmail(em, email));
}

/** A new account without a password; null when the address was taken meanwhile. */
export async function registerSsoAccount(
  em: EntityManager,
  a: { email: string; fullName: string | null },
): Promise<string | null> {
  return (await insertAccount(em, { email: a.email, fullName: a.fullName, passwordHash: null }))?.id ?? null;
}

/**
 * Applies the grades of one sign-in: every team whose slug is granted gets (or keeps) a membership with that
 * role; on teams the person is no longer matched to, an existing membership drops to the lowest grade.
 * Teams are matched by slug in every organization; a slug naming no team grants nothing.
 */
export async function applyTeamGrades(em: EntityManager, userId: string, grades: TeamGrades): Promise<void> {
  for (const [slug, role] of grades.grant) await grantRoleBySlug(em, userId, slug, role);
  await lowerRolesBySlug(em, userId, grades.lower, LOWEST_GRADE);
}
