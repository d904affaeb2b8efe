// The feeds' periodic job: every check, each feed first gets its snapshot when it holds none, then its refresh when
// due (KEV, EPSS, EOL daily; the malicious snapshot weekly). A feed's failure never stops the others.
import type { MikroORM } from "@mikro-orm/postgresql";
import type { Logger } from "@sca/log";
import type { PeriodicJob } from "@sca/runtime";
import { loadEolSnapshot, refreshEol } from "./eol-feed.ts";
import { loadVendoredEpss, refreshEpss } from "./epss-feed.ts";
import type { FeedSettings } from "./feed-settings.ts";
import { loadVendoredKev, refreshKev } from "./kev-feed.ts";
import { loadMaliciousSnapshot, refreshMalicious } from "./malicious-feed.ts";

export function enrichmentFeedsJob(
  orm: MikroORM,
  settings: FeedSettings,
  logger: Logger,
  everyMs: number,
): PeriodicJob {
  // Each feed: its snapshot when it holds none, then its refresh when due.
  const steps: [string, (signal: AbortSignal) => Promise<unknown>][] = [
    [
      "kev",
      async (signal) => {
        await loadVendoredKev(orm, settings);
        return refreshKev(orm, settings, logger, signal);
      },
    ],
    [
      "epss",
      async (signal) => {
        await loadVendoredEpss(orm, settings);
        return refreshEpss(orm, settings, logger, signal);
      },
    ],
    [
      "eol",
      async (signal) => {
        await loadEolSnapshot(orm, settings);
        return refreshEol(orm, settings, logger, signal);
      },
    ],
    [
      "malicious",
      async () => {
        await loadMaliciousSnapshot(orm, settings);
        return refreshMalicious(orm, settings, logger);
      },
    ],
  ];
  return {
    name: "enrichment feeds",
    everyMs,
    run: async (signal) => {
      for (const [feed, step] of steps) {
        if (signal.aborted) return;
        await step(signal).catch((err: unknown) => logger.error({ err, feed }, "enrichment feed step failed"));
      }
    },
  };
}
