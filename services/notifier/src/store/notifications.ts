// The notifications table: the one module that reads or writes `notifications` (docs/adr/0005).
import { raw, type EntityManager } from "@mikro-orm/postgresql";
import { SNAPSHOT } from "@sca/db";
import { Notification, type NotificationRow } from "./entities/notification.ts";

export type NewNotification = Omit<NotificationRow, "createdAt" | "readAt">;

/**
 * Adds notifications; one the same event already raised for the same person is left as it is. Answers the ids of
 * those now stored for the event (new or not), by person.
 */
export async function insertNotifications(
  em: EntityManager,
  rows: readonly NewNotification[],
): Promise<Map<string, string>> {
  if (rows.length === 0) return new Map();
  await em
    .createQueryBuilder(Notification)
    .insert([...rows])
    .onConflict(["sourceEventId", "userId"])
    .ignore()
    .execute("run");
  const stored = await em.find(
    Notification,
    { sourceEventId: rows[0]!.sourceEventId, userId: { $in: rows.map((r) => r.userId) } },
    { ...SNAPSHOT, fields: ["id", "userId"] },
  );
  return new Map(stored.map((n) => [n.userId, n.id]));
}

export async function listNotifications(
  em: EntityManager,
  userId: string,
  opts: { unreadOnly: boolean; limit: number; offset: number },
): Promise<{ rows: NotificationRow[]; total: number }> {
  const where = opts.unreadOnly ? { userId, readAt: null } : { userId };
  const [rows, total] = await em.findAndCount(Notification, where, {
    ...SNAPSHOT,
    orderBy: { createdAt: "desc", id: "desc" },
    limit: opts.limit,
    offset: opts.offset,
  });
  return { rows, total };
}

export async function countUnread(em: EntityManager, userId: string): Promise<number> {
  return em.count(Notification, { userId, readAt: null });
}

/** Marks the person's unread notifications read; answers how many. */
export async function markAllRead(em: EntityManager, userId: string): Promise<number> {
  return em.nativeUpdate(Notification, { userId, readAt: null }, { readAt: raw("now()") });
}

/** Marks one of the person's notifications read (the first read_at is kept); null when it is not theirs. */
export async function markRead(em: EntityManager, userId: string, id: string): Promise<NotificationRow | null> {
  await em.nativeUpdate(Notification, { id, userId, readAt: null }, { readAt: raw("now()") });
  return em.findOne(Notification, { id, userId }, SNAPSHOT);
}
