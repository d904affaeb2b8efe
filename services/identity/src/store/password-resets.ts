// One-shot reset tokens by digest, and the per-address cooldown of reset e-mails.
import { randomUUID } from "node:crypto";
import type { EntityManager } from "@mikro-orm/postgresql";
import { SNAPSHOT } from "@sca/db";
import { PasswordResetCooldown, PasswordResetToken } from "./entities/password-reset.ts";

export async function insertResetToken(
  em: EntityManager,
  t: { userId: string; hash: string; expiresAt: Date },
): Promise<void> {
  await em.insert(PasswordResetToken, {
    id: randomUUID(),
    userId: t.userId,
    tokenHash: t.hash,
    expiresAt: t.expiresAt,
  });
}

/** Marks the token used and answers its user, or null when it is unknown, used or expired. */
export async function consumeResetToken(em: EntityManager, hash: string, now: Date): Promise<string | null> {
  const token = await em.findOne(
    PasswordResetToken,
    { tokenHash: hash, usedAt: null, expiresAt: { $gt: now } },
    SNAPSHOT,
  );
  // The update claims the token: of two concurrent resets with it, only one changes the row.
  const claimed = token
    ? await em.nativeUpdate(PasswordResetToken, { id: token.id, usedAt: null }, { usedAt: now })
    : 0;
  return claimed === 1 ? token!.userId : null;
}

/** A completed reset spends every other outstanding token of the user too. */
export async function spendResetTokensOf(em: EntityManager, userId: string, now: Date): Promise<void> {
  await em.nativeUpdate(PasswordResetToken, { userId, usedAt: null }, { usedAt: now });
}

export async function lastResetRequest(em: EntityManager, email: string): Promise<Date | null> {
  return (await em.findOne(PasswordResetCooldown, { email }, SNAPSHOT))?.lastRequestedAt ?? null;
}

export async function recordResetRequest(em: EntityManager, email: string, at: Date): Promise<void> {
  await em
    .createQueryBuilder(PasswordResetCooldown)
    .insert({ email, lastRequestedAt: at })
    .onConflict("email")
    .merge(["lastRequestedAt"])
    .execute("run");
}

/** The daily sweep: reset tokens past expiry by graceDays; cooldowns older than a day (longest cooldown). */
export async function deleteExpiredResetState(em: EntityManager, now: Date, graceDays: number): Promise<number> {
  const tokens = await em.nativeDelete(PasswordResetToken, {
    expiresAt: { $lt: new Date(now.getTime() - graceDays * 86_400_000) },
  });
  await em.nativeDelete(PasswordResetCooldown, { lastRequestedAt: { $lt: new Date(now.getTime() - 86_400_000) } });
  return tokens;
}
