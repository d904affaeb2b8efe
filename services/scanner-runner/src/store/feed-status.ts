// Reads and writes of feed_status: each enrichment feed's panel fields and the lease that lets one instance at a
// time refresh it (see the entity).
import { LockMode, type EntityManager } from "@mikro-orm/postgresql";
import { SNAPSHOT } from "@sca/db";
import type { FeedName } from "../domain/feeds/feed-status.ts";
import { FeedStatus, type FeedStatusRow } from "./entities/enrichment-feeds.ts";

export type FeedStatusChange = Partial<Omit<FeedStatusRow, "feed" | "updatedAt" | "claimedUntil">>;

export async function feedStatus(em: EntityManager, feed: FeedName): Promise<FeedStatusRow | null> {
  return em.findOne(FeedStatus, { feed }, SNAPSHOT);
}

async function ensureRow(em: EntityManager, feed: FeedName): Promise<void> {
  await em
    .createQueryBuilder(FeedStatus)
    .insert({ feed, updatedAt: new Date() })
    .onConflict("feed")
    .ignore()
    .execute("run");
}

/**
 * Takes the feed's lease until `until` when no other instance holds it and, unless `force`, the feed is due (no
 * next_refresh_at yet, or it has passed). True when this instance now holds it.
 */
export async function claimFeed(
  em: EntityManager,
  feed: FeedName,
  now: Date,
  until: Date,
  force = false,
): Promise<boolean> {
  await ensureRow(em, feed);
  const due = force ? {} : { $or: [{ nextRefreshAt: null }, { nextRefreshAt: { $lte: now } }] };
  const result = await em
    .createQueryBuilder(FeedStatus)
    .update({ claimedUntil: until })
    .where({ feed, $and: [{ $or: [{ claimedUntil: null }, { claimedUntil: { $lt: now } }] }, due] })
    .execute("run");
  return result.affectedRows === 1;
}

/** Writes the fields of an attempt (or a snapshot load) and, when `release`, gives the lease back. */
export async function recordFeedStatus(
  em: EntityManager,
  feed: FeedName,
  change: FeedStatusChange,
  release = true,
): Promise<void> {
  await ensureRow(em, feed);
  await em.nativeUpdate(
    FeedStatus,
    { feed },
    { ...change, ...(release ? { claimedUntil: null } : {}), updatedAt: new Date() },
  );
}

/** Adds the matcher's counts (components stamped, flagged, ...) to the feed's counts, keeping the others. */
export async function recordFeedCounts(
  em: EntityManager,
  feed: FeedName,
  counts: Record<string, number>,
): Promise<void> {
  await ensureRow(em, feed);
  await em.transactional(async (tx) => {
    const row = await tx.findOne(FeedStatus, { feed }, { ...SNAPSHOT, lockMode: LockMode.PESSIMISTIC_WRITE });
    await tx.nativeUpdate(
      FeedStatus,
      { feed },
      { counts: { ...(row?.counts ?? {}), ...counts }, updatedAt: new Date() },
    );
  });
}
