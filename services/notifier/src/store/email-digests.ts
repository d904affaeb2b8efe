// The email_digest_subscribers and digest_items tables: the one module that reads or writes them (docs/adr/0005).
import { randomUUID } from "node:crypto";
import { LockMode, type EntityManager } from "@mikro-orm/postgresql";
import { SNAPSHOT } from "@sca/db";
import { DigestItem, EmailDigestSubscriber, type DigestItemRow } from "./entities/email-digest.ts";

/** Of these people, those who take the daily digest. */
export async function digestSubscribers(em: EntityManager, userIds: readonly string[]): Promise<Set<string>> {
  if (userIds.length === 0) return new Set();
  const rows = await em.find(EmailDigestSubscriber, { userId: { $in: [...new Set(userIds)] } }, SNAPSHOT);
  return new Set(rows.map((r) => r.userId));
}

export async function setDigest(em: EntityManager, userId: string, daily: boolean): Promise<void> {
  if (!daily) {
    await em.nativeDelete(EmailDigestSubscriber, { userId });
    return;
  }
  await em
    .createQueryBuilder(EmailDigestSubscriber)
    .insert({ userId, updatedAt: new Date() })
    .onConflict(["userId"])
    .ignore()
    .execute("run");
}

export type NewDigestItem = Omit<DigestItemRow, "id" | "createdAt">;

/** Holds e-mails for digests; one the same event already holds for the same person is left as it is. */
export async function holdForDigest(em: EntityManager, items: readonly NewDigestItem[]): Promise<void> {
  if (items.length === 0) return;
  await em
    .createQueryBuilder(DigestItem)
    .insert(items.map((i) => ({ id: randomUUID(), ...i })))
    .onConflict(["userId", "sourceEventId"])
    .ignore()
    .execute("run");
}

/** People with held items, oldest first, up to `limit`. */
export async function peopleWithHeldItems(em: EntityManager, limit: number): Promise<string[]> {
  const rows = await em
    .createQueryBuilder(DigestItem)
    .select("userId", true)
    .orderBy({ userId: "asc" })
    .limit(limit)
    .execute<{ userId: string }[]>("all");
  return rows.map((r) => r.userId);
}

/**
 * Takes up to `limit` of a person's held items, oldest first, deleting them, in the caller's transaction: the rows
 * are locked (another replica's digest job skips them), and they are gone only if that transaction commits, with
 * the digest's delivery.
 */
export async function takeHeldItems(em: EntityManager, userId: string, limit: number): Promise<DigestItemRow[]> {
  const items = await em.find(
    DigestItem,
    { userId },
    { ...SNAPSHOT, orderBy: { createdAt: "asc", id: "asc" }, limit, lockMode: LockMode.PESSIMISTIC_PARTIAL_WRITE },
  );
  if (items.length > 0) await em.nativeDelete(DigestItem, { id: { $in: items.map((i) => i.id) } });
  return items;
}
