// The failed-sign-in throttle lives in PostgreSQL beside the accounts, so a password reset clears it in the
// same transaction, and it survives a Redis flush.
import { LockMode, raw, type EntityManager } from "@mikro-orm/postgresql";
import { SNAPSHOT } from "@sca/db";
import { CLEAR, type ThrottleState } from "../domain/sign-in-throttle.ts";
import { SignInThrottle } from "./entities/sign-in-throttle.ts";

/** The address's throttle, its row locked until the transaction ends (run inside em.transactional). */
export async function throttleOf(em: EntityManager, email: string): Promise<ThrottleState> {
  const row = await em.findOne(SignInThrottle, { email }, { ...SNAPSHOT, lockMode: LockMode.PESSIMISTIC_WRITE });
  return row ? { consecutiveFailures: row.consecutiveFailures, refusedUntil: row.refusedUntil } : CLEAR;
}

export async function saveThrottle(em: EntityManager, email: string, state: ThrottleState): Promise<void> {
  await em
    .createQueryBuilder(SignInThrottle)
    .insert({
      email,
      consecutiveFailures: state.consecutiveFailures,
      refusedUntil: state.refusedUntil,
      updatedAt: raw("now()"),
    })
    .onConflict("email")
    .merge(["consecutiveFailures", "refusedUntil", "updatedAt"])
    .execute("run");
}

export async function clearThrottle(em: EntityManager, email: string): Promise<void> {
  await em.nativeDelete(SignInThrottle, { email });
}

/** The daily sweep: addresses idle for longer than the longest refusal window and a day. */
export async function deleteIdleThrottles(em: EntityManager, now: Date, longestWindowSeconds: number): Promise<number> {
  return em.nativeDelete(SignInThrottle, {
    updatedAt: { $lt: new Date(now.getTime() - longestWindowSeconds * 1000 - 86_400_000) },
  });
}
