// TOTP seeds (sealed) and recovery codes (digests).
import { randomUUID } from "node:crypto";
import { LockMode, raw, type EntityManager } from "@mikro-orm/postgresql";
import { SNAPSHOT } from "@sca/db";
import { RecoveryCode, TotpFactor, type TotpFactorRow } from "./entities/second-factor.ts";

export type TotpRow = Pick<TotpFactorRow, "secretSealed" | "confirmedAt" | "lastUsedStep">;

/** The user's factor, its row locked until the transaction ends (run inside em.transactional). */
export async function totpOf(em: EntityManager, userId: string): Promise<TotpRow | null> {
  return em.findOne(TotpFactor, { userId }, { ...SNAPSHOT, lockMode: LockMode.PESSIMISTIC_WRITE });
}

/** Starts enrolment: a pending seed replaces any earlier pending one. */
export async function savePendingTotp(em: EntityManager, userId: string, sealed: string): Promise<void> {
  await em
    .createQueryBuilder(TotpFactor)
    .insert({ userId, secretSealed: sealed })
    .onConflict("userId")
    .merge({ secretSealed: sealed, confirmedAt: null, lastUsedStep: null, createdAt: raw("now()") })
    .execute("run");
}

export async function confirmTotp(em: EntityManager, userId: string, step: number, at: Date): Promise<void> {
  await em.nativeUpdate(TotpFactor, { userId }, { confirmedAt: at, lastUsedStep: step });
}

export async function recordTotpStep(em: EntityManager, userId: string, step: number): Promise<void> {
  await em.nativeUpdate(TotpFactor, { userId }, { lastUsedStep: step });
}

export async function replaceRecoveryCodes(em: EntityManager, userId: string, digests: string[]): Promise<void> {
  await em.nativeDelete(RecoveryCode, { userId });
  if (digests.length > 0)
    await em.insertMany(
      RecoveryCode,
      digests.map((codeDigest) => ({ id: randomUUID(), userId, codeDigest })),
    );
}

/** Spends an unused recovery code; false when there is none with that digest. */
export async function spendRecoveryCode(em: EntityManager, userId: string, digest: string, at: Date): Promise<boolean> {
  return (await em.nativeUpdate(RecoveryCode, { userId, codeDigest: digest, usedAt: null }, { usedAt: at })) > 0;
}

/** Removes the second factor entirely (owner's removal or the administrator's clear). */
export async function deleteSecondFactor(em: EntityManager, userId: string): Promise<boolean> {
  const removed = await em.nativeDelete(TotpFactor, { userId });
  await em.nativeDelete(RecoveryCode, { userId });
  return removed > 0;
}
