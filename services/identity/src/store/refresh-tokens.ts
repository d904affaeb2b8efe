// Refresh tokens by digest. Rotation claims a token atomically, so two racing refreshes with one token
// cannot both succeed: the loser sees it rotated and revokes the family.
import { randomUUID } from "node:crypto";
import type { EntityManager } from "@mikro-orm/postgresql";
import { query, withDates } from "./raw-sql.ts";

export interface RefreshTokenRow {
  id: string;
  user_id: string;
  family_id: string;
  expires_at: Date;
  rotated_at: Date | null;
  revoked_at: Date | null;
  user_active: boolean;
}

export async function insertRefreshToken(em: EntityManager, t: { userId: string; familyId: string; hash: string; expiresAt: Date }): Promise<void> {
  await query(em, "insert into refresh_tokens (id, user_id, family_id, token_hash, expires_at) values (?, ?, ?, ?, ?)",
    [randomUUID(), t.userId, t.familyId, t.hash, t.expiresAt]);
}

/** Locks the row (for update) so the rotation decision and its effect happen together. */
export async function lockRefreshToken(em: EntityManager, hash: string): Promise<RefreshTokenRow | null> {
  const [row] = await query<RefreshTokenRow>(em,
    `select t.id, t.user_id, t.family_id, t.expires_at, t.rotated_at, t.revoked_at, u.is_active as user_active
     from refresh_tokens t join users u on u.id = t.user_id where t.token_hash = ? for update of t`, [hash]);
  return row ? withDates(row, "expires_at", "rotated_at", "revoked_at") : null;
}

export async function markRotated(em: EntityManager, id: string, at: Date): Promise<void> {
  await query(em, "update refresh_tokens set rotated_at = ? where id = ?", [at, id]);
}

export async function revokeFamily(em: EntityManager, familyId: string, at: Date): Promise<void> {
  await query(em, "update refresh_tokens set revoked_at = ? where family_id = ? and revoked_at is null", [at, familyId]);
}

/** Every session of the user ends (password reset, deactivation). */
export async function revokeAllOfUser(em: EntityManager, userId: string, at: Date): Promise<number> {
  const rows = await query(em, "update refresh_tokens set revoked_at = ? where user_id = ? and revoked_at is null returning id", [at, userId]);
  return rows.length;
}

/** The daily sweep: rows whose expiry lies more than graceDays back. */
export async function deleteExpiredRefreshTokens(em: EntityManager, now: Date, graceDays: number): Promise<number> {
  const rows = await query(em, "delete from refresh_tokens where expires_at < ? returning id", [new Date(now.getTime() - graceDays * 86_400_000)]);
  return rows.length;
}
