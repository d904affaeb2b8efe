// Refresh tokens by digest. Rotation claims a token atomically, so two racing refreshes with one token
// cannot both succeed: the loser sees it rotated and revokes the family.
import { randomUUID } from "node:crypto";
import { LockMode, type EntityManager } from "@mikro-orm/postgresql";
import { SNAPSHOT } from "@sca/db";
import { accountById } from "./accounts.ts";
import { RefreshToken, type RefreshTokenRow } from "./entities/refresh-token.ts";

export interface LockedRefreshToken extends Pick<
  RefreshTokenRow,
  "id" | "userId" | "familyId" | "expiresAt" | "rotatedAt" | "revokedAt"
> {
  userActive: boolean;
}

export async function insertRefreshToken(
  em: EntityManager,
  t: { userId: string; familyId: string; hash: string; expiresAt: Date },
): Promise<void> {
  await em.insert(RefreshToken, {
    id: randomUUID(),
    userId: t.userId,
    familyId: t.familyId,
    tokenHash: t.hash,
    expiresAt: t.expiresAt,
  });
}

/** Locks the row (for update) so the rotation decision and its effect happen together. */
export async function lockRefreshToken(em: EntityManager, hash: string): Promise<LockedRefreshToken | null> {
  const token = await em.findOne(
    RefreshToken,
    { tokenHash: hash },
    { ...SNAPSHOT, lockMode: LockMode.PESSIMISTIC_WRITE },
  );
  const user = token && (await accountById(em, token.userId));
  if (!token || !user) return null;
  return {
    id: token.id,
    userId: token.userId,
    familyId: token.familyId,
    expiresAt: token.expiresAt,
    rotatedAt: token.rotatedAt,
    revokedAt: token.revokedAt,
    userActive: user.isActive,
  };
}

export async function markRotated(em: EntityManager, id: string, at: Date): Promise<void> {
  await em.nativeUpdate(RefreshToken, { id }, { rotatedAt: at });
}

export async function revokeFamily(em: EntityManager, familyId: string, at: Date): Promise<void> {
  await em.nativeUpdate(RefreshToken, { familyId, revokedAt: null }, { revokedAt: at });
}

/** Whether the session (refresh-token family) has not been ended: logout, reuse, reset and deactivation revoke it. */
export async function sessionIsOpen(em: EntityManager, familyId: string): Promise<boolean> {
  return (await em.count(RefreshToken, { familyId, revokedAt: null })) > 0;
}

/** Every session of the user ends (password reset, deactivation). */
export async function revokeAllOfUser(em: EntityManager, userId: string, at: Date): Promise<number> {
  return em.nativeUpdate(RefreshToken, { userId, revokedAt: null }, { revokedAt: at });
}

/** The daily sweep: rows whose expiry lies more than graceDays back. */
export async function deleteExpiredRefreshTokens(em: EntityManager, now: Date, graceDays: number): Promise<number> {
  return em.nativeDelete(RefreshToken, { expiresAt: { $lt: new Date(now.getTime() - graceDays * 86_400_000) } });
}
