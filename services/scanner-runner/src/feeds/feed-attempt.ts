// One refresh of one feed, the same way for every feed: the lease (one instance at a time), the attempt's panel
// fields (last attempt, result, duration, reason, next refresh) and the feed's own fields from the work's outcome.
// The work replaces data in one transaction of its own, so a failure leaves the stored data as it was. Each feed
// (kev-feed.ts, epss-feed.ts, eol-feed.ts, malicious-feed.ts) is an EnrichmentFeed: what differs between them.
import type { MikroORM } from "@mikro-orm/postgresql";
import type { Logger } from "@sca/log";
import { REFRESH_PERIOD_MS, type FeedName } from "../domain/feeds/feed-status.ts";
import { claimFeed, feedStatus, recordFeedStatus, type FeedStatusChange } from "../store/feed-status.ts";
import type { FeedSettings } from "./feed-settings.ts";

/** One enrichment feed, as its periodic job and a forced refresh see it. */
export interface EnrichmentFeed {
  name: FeedName;
  /** Loads the feed's snapshot when it holds none (or another source's); true when it did. */
  loadSnapshot(orm: MikroORM, settings: FeedSettings): Promise<boolean>;
  /** Why a refresh does not run under these settings (the key that turns it off); undefined: it runs. */
  skippedReason(settings: FeedSettings): string | undefined;
  /** The host a refresh reaches, for the panel; "" when none. */
  feedHost(settings: FeedSettings): string;
  /** A refresh's work: the new data stored in one transaction, and what the panel counts of it. */
  refresh(orm: MikroORM, settings: FeedSettings, signal: AbortSignal): Promise<FeedOutcome>;
  /** What a skipped attempt still does. */
  afterSkip?(orm: MikroORM, settings: FeedSettings): Promise<void>;
}

export interface FeedOutcome {
  counts: Record<string, number | string[]>;
  snapshotDate?: string | null;
  snapshotOrigin?: string;
}

interface AttemptPlan {
  feed: FeedName;
  /** Why a refresh does not run (the key that turns it off); undefined: it runs. */
  skippedReason?: string;
  feedHost: string;
  leaseMs: number;
  retryAfterFailureMs: number;
  /** Run even when not yet due (a test, an operator's request). */
  force?: boolean;
}

export type AttemptResult = "synced" | "failed" | "skipped" | "not-due";

/** One refresh attempt of `feed`, when due (or `force`). */
export async function refreshFeed(
  feed: EnrichmentFeed,
  orm: MikroORM,
  settings: FeedSettings,
  logger: Logger,
  signal: AbortSignal,
  force = false,
): Promise<AttemptResult> {
  const skippedReason = feed.skippedReason(settings);
  const plan: AttemptPlan = {
    feed: feed.name,
    ...(skippedReason === undefined ? {} : { skippedReason }),
    feedHost: feed.feedHost(settings),
    leaseMs: settings.leaseMs,
    retryAfterFailureMs: settings.retryAfterFailureMs,
    force,
  };
  const result = await attemptRefresh(orm, plan, logger, () => feed.refresh(orm, settings, signal));
  if (result === "skipped") await feed.afterSkip?.(orm, settings);
  return result;
}

async function attemptRefresh(
  orm: MikroORM,
  plan: AttemptPlan,
  logger: Logger,
  work: () => Promise<FeedOutcome>,
): Promise<AttemptResult> {
  const em = orm.em.fork();
  const now = new Date();
  if (!(await claimFeed(em, plan.feed, now, new Date(now.getTime() + plan.leaseMs), plan.force))) return "not-due";
  const period = REFRESH_PERIOD_MS[plan.feed];
  if (plan.skippedReason !== undefined) {
    await recordFeedStatus(em, plan.feed, {
      lastAttemptAt: now,
      lastResult: "skipped",
      skippedReason: plan.skippedReason,
      durationMs: 0,
      feedHost: plan.feedHost,
      nextRefreshAt: new Date(now.getTime() + period),
    });
    return "skipped";
  }
  const started = Date.now();
  try {
    const outcome = await work();
    const before = await feedStatus(em, plan.feed);
    const change: FeedStatusChange = {
      lastAttemptAt: now,
      lastResult: "synced",
      lastSyncedAt: new Date(),
      skippedReason: "",
      durationMs: Date.now() - started,
      feedHost: plan.feedHost,
      nextRefreshAt: new Date(now.getTime() + period),
      counts: { ...(before?.counts ?? {}), ...outcome.counts },
    };
    if (outcome.snapshotDate !== undefined) change.snapshotDate = outcome.snapshotDate;
    if (outcome.snapshotOrigin !== undefined) change.snapshotOrigin = outcome.snapshotOrigin;
    await recordFeedStatus(em, plan.feed, change);
    return "synced";
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    logger.warn({ feed: plan.feed, reason }, "enrichment feed refresh failed; the stored data stays");
    await recordFeedStatus(em, plan.feed, {
      lastAttemptAt: now,
      lastResult: "failed",
      skippedReason: reason.slice(0, 500),
      durationMs: Date.now() - started,
      feedHost: plan.feedHost,
      nextRefreshAt: new Date(now.getTime() + plan.retryAfterFailureMs),
    });
    return "failed";
  }
}

/**
 * Loads a snapshot into an empty (or differently sourced) feed once, under the same lease, without counting as a
 * refresh attempt: the panel keeps "never" until the feed itself is tried.
 */
export async function loadSnapshotOnce(
  orm: MikroORM,
  feed: FeedName,
  leaseMs: number,
  needed: (origin: string | null) => Promise<boolean>,
  load: () => Promise<FeedOutcome>,
): Promise<boolean> {
  const em = orm.em.fork();
  const status = await feedStatus(em, feed);
  if (!(await needed(status?.snapshotOrigin ?? null))) return false;
  const now = new Date();
  if (!(await claimFeed(em, feed, now, new Date(now.getTime() + leaseMs), true))) return false;
  try {
    const outcome = await load();
    const before = await feedStatus(em, feed);
    await recordFeedStatus(em, feed, {
      counts: { ...(before?.counts ?? {}), ...outcome.counts },
      snapshotDate: outcome.snapshotDate ?? null,
      snapshotOrigin: outcome.snapshotOrigin ?? "vendored",
    });
    return true;
  } catch (err) {
    await recordFeedStatus(em, feed, {});
    throw err;
  }
}
