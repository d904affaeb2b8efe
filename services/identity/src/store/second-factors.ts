// TOTP seeds (sealed) and recovery codes (digests).
import { randomUUID } from "node:crypto";
import type { EntityManager } from "@mikro-orm/postgresql";
import { query } from "./raw-sql.ts";

export interface TotpRow { secret_sealed: string; confirmed_at: Date | null; last_used_step: string | null }

export async function totpOf(em: EntityManager, userId: string): Promise<TotpRow | null> {
  const [row] = await query<TotpRow>(em, "select secret_sealed, confirmed_at, last_used_step from totp_factors where user_id = ? for update", [userId]);
  return row ?? null;
}

/** Starts enrolment: a pending seed replaces any earlier pending one. */
export async function savePendingTotp(em: EntityManager, userId: string, sealed: string): Promise<void> {
  await query(em, `insert into totp_factors (user_id, secret_sealed) values (?, ?)
    on conflict (user_id) do update set secret_sealed = excluded.secret_sealed, confirmed_at = null, last_used_step = null, created_at = now()`,
  [userId, sealed]);
}

export async function confirmTotp(em: EntityManager, userId: string, step: number, at: Date): Promise<void> {
  await query(em, "update totp_factors set confirmed_at = ?, last_used_step = ? where user_id = ?", [at, step, userId]);
}

export async function recordTotpStep(em: EntityManager, userId: string, step: number): Promise<void> {
  await query(em, "update totp_factors set last_used_step = ? where user_id = ?", [step, userId]);
}

export async function replaceRecoveryCodes(em: EntityManager, userId: string, digests: string[]): Promise<void> {
  await query(em, "delete from recovery_codes where user_id = ?", [userId]);
  for (const d of digests) {
    await query(em, "insert into recovery_codes (id, user_id, code_digest) values (?, ?, ?)", [randomUUID(), userId, d]);
  }
}

/** Spends an unused recovery code; false when there is none with that digest. */
export async function spendRecoveryCode(em: EntityManager, userId: string, digest: string, at: Date): Promise<boolean> {
  const rows = await query(em, "update recovery_codes set used_at = ? where user_id = ? and code_digest = ? and used_at is null returning id",
    [at, userId, digest]);
  return rows.length > 0;
}

/** Removes the second factor entirely (owner's removal or the administrator's clear). */
export async function deleteSecondFactor(em: EntityManager, userId: string): Promise<boolean> {
  const rows = await query(em, "delete from totp_factors where user_id = ? returning user_id", [userId]);
  await query(em, "delete from recovery_codes where user_id = ?", [userId]);
  return rows.length > 0;
}
