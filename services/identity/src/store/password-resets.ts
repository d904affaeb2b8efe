// One-shot reset tokens by digest, and the per-address cooldown of reset e-mails.
import { randomUUID } from "node:crypto";
import type { EntityManager } from "@mikro-orm/postgresql";
import { query } from "./raw-sql.ts";

export async function insertResetToken(em: EntityManager, t: { userId: string; hash: string; expiresAt: Date }): Promise<void> {
  await query(em, "insert into password_reset_tokens (id, user_id, token_hash, expires_at) values (?, ?, ?, ?)",
    [randomUUID(), t.userId, t.hash, t.expiresAt]);
}

/** Marks the token used and answers its user, or null when it is unknown, used or expired. */
export async function consumeResetToken(em: EntityManager, hash: string, now: Date): Promise<string | null> {
  const [row] = await query<{ user_id: string }>(em,
    `update password_reset_tokens set used_at = ? where token_hash = ? and used_at is null and expires_at > ?
     returning user_id`, [now, hash, now]);
  return row?.user_id ?? null;
}

/** A completed reset spends every other outstanding token of the user too. */
export async function spendResetTokensOf(em: EntityManager, userId: string, now: Date): Promise<void> {
  await query(em, "update password_reset_tokens set used_at = ? where user_id = ? and used_at is null", [now, userId]);
}

export async function lastResetRequest(em: EntityManager, email: string): Promise<Date | null> {
  const [row] = await query<{ last_requested_at: Date }>(em, "select last_requested_at from password_reset_cooldowns where email = ?", [email]);
  return row ? new Date(row.last_requested_at) : null;
}

export async function recordResetRequest(em: EntityManager, email: string, at: Date): Promise<void> {
  await query(em, `insert into password_reset_cooldowns (email, last_requested_at) values (?, ?)
    on conflict (email) do update set last_requested_at = excluded.last_requested_at`, [email, at]);
}

/** The daily sweep: reset tokens past expiry by graceDays; cooldowns older than a day (longest cooldown). */
export async function deleteExpiredResetState(em: EntityManager, now: Date, graceDays: number): Promise<number> {
  const tokens = await query(em, "delete from password_reset_tokens where expires_at < ? returning id", [new Date(now.getTime() - graceDays * 86_400_000)]);
  await query(em, "delete from password_reset_cooldowns where last_requested_at < ?", [new Date(now.getTime() - 86_400_000)]);
  return tokens.length;
}
