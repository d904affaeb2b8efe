// The feeds' periodic job: every check, each feed first gets its snapshot when it holds none, then its refresh when
// due (KEV, EPSS, EOL daily; the malicious snapshot weekly). A feed's failure never stops the others.
import type { MikroORM } from "@mikro-orm/postgresql";
import type { Logger } from "@sca/log";
import type { PeriodicJob } from "@sca/runtime";
import { eolFeed } from "./eol-feed.ts";
import { epssFeed } from "./epss-feed.ts";
import { refreshFeed, type EnrichmentFeed } from "./feed-attempt.ts";
import type { FeedSettings } from "./feed-settings.ts";
import { kevFeed } from "./kev-feed.ts";
import { maliciousFeed } from "./malicious-feed.ts";

const FEEDS: readonly EnrichmentFeed[] = [kevFeed, epssFeed, eolFeed, maliciousFeed];

export function enrichmentFeedsJob(
  orm: MikroORM,
  settings: FeedSettings,
  logger: Logger,
  everyMs: number,
): PeriodicJob {
  return {
    name: "enrichment feeds",
    everyMs,
    run: async (signal) => {
      for (const feed of FEEDS) {
        if (signal.aborted) return;
        await feed
          .loadSnapshot(orm, settings)
          .then(() => refreshFeed(feed, orm, settings, logger, signal))
          .catch((err: unknown) => logger.error({ err, feed: feed.name }, "enrichment feed step failed"));
      }
    },
  };
}
