// A super_admin's refresh of one feed (docs/enrichment-feeds.md, "Refreshing on request"): the feed's own refresh
// (feed-attempt.ts, forced past its schedule) or the advisory database's import, started in the background; the
// request answers at once and the panel shows the outcome. The feeds' keys still hold: a refresh its key turns off
// records `skipped` with that key, as the schedule would. A refresh already running (the feed's lease) is not doubled.
import type { MikroORM } from "@mikro-orm/postgresql";
import type { Logger } from "@sca/log";
import type { AdvisoryDatabase } from "../vulndb/advisory-database.ts";
import { eolFeed } from "./eol-feed.ts";
import { refreshFeed, type EnrichmentFeed } from "./feed-attempt.ts";
import type { FeedSettings } from "./feed-settings.ts";
import { kevFeed } from "./kev-feed.ts";
import { maliciousFeed } from "./malicious-feed.ts";

export const REFRESHABLE_FEEDS = ["kev", "eol", "malicious", "osv"] as const;
export type RefreshableFeed = (typeof REFRESHABLE_FEEDS)[number];

const ENRICHMENT: Record<Exclude<RefreshableFeed, "osv">, EnrichmentFeed> = {
  kev: kevFeed,
  eol: eolFeed,
  malicious: maliciousFeed,
};

export interface FeedRefreshRequests {
  /** Starts the feed's refresh; its outcome goes to the panel (and the log). */
  request(feed: RefreshableFeed): void;
  /** Aborts the refreshes under way and waits for them. */
  close(): Promise<void>;
}

export function feedRefreshRequests(deps: {
  orm: MikroORM;
  settings: FeedSettings;
  vulndb: AdvisoryDatabase;
  logger: Logger;
}): FeedRefreshRequests {
  const stopped = new AbortController();
  const running = new Set<Promise<unknown>>();
  return {
    request(feed) {
      const work =
        feed === "osv"
          ? deps.vulndb.refreshNow()
          : refreshFeed(ENRICHMENT[feed], deps.orm, deps.settings, deps.logger, stopped.signal, true);
      const tracked = work
        .then((result) => deps.logger.info({ feed, result: result ?? "imported" }, "feed refresh on request"))
        .catch((err: unknown) => deps.logger.error({ err, feed }, "feed refresh on request failed"))
        .finally(() => running.delete(tracked));
      running.add(tracked);
    },
    async close() {
      stopped.abort();
      await Promise.all(running);
    },
  };
}
