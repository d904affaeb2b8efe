// The failed-sign-in throttle lives in PostgreSQL beside the accounts, so a password reset clears it in the
// same transaction, and it survives a Redis flush.
import type { EntityManager } from "@mikro-orm/postgresql";
import { CLEAR, type ThrottleState } from "../domain/sign-in-throttle.ts";
import { query } from "./raw-sql.ts";

export async function throttleOf(em: EntityManager, email: string): Promise<ThrottleState> {
  const [row] = await query<{ consecutive_failures: number; refused_until: Date | null }>(em,
    "select consecutive_failures, refused_until from sign_in_throttles where email = ? for update", [email]);
  return row ? { consecutiveFailures: row.consecutive_failures, refusedUntil: row.refused_until === null ? null : new Date(row.refused_until) } : CLEAR;
}

export async function saveThrottle(em: EntityManager, email: string, state: ThrottleState): Promise<void> {
  await query(em, `insert into sign_in_throttles (email, consecutive_failures, refused_until, updated_at) values (?, ?, ?, now())
    on conflict (email) do update set consecutive_failures = excluded.consecutive_failures,
      refused_until = excluded.refused_until, updated_at = now()`, [email, state.consecutiveFailures, state.refusedUntil]);
}

export async function clearThrottle(em: EntityManager, email: string): Promise<void> {
  await query(em, "delete from sign_in_throttles where email = ?", [email]);
}

/** The daily sweep: addresses idle for longer than the longest refusal window and a day. */
export async function deleteIdleThrottles(em: EntityManager, now: Date, longestWindowSeconds: number): Promise<number> {
  const rows = await query(em, "delete from sign_in_throttles where updated_at < ? returning email",
    [new Date(now.getTime() - longestWindowSeconds * 1000 - 86_400_000)]);
  return rows.length;
}
