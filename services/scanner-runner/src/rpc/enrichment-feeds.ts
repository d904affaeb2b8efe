// EnrichmentFeedService: the feeds' status panels (super_admin; anyone else NotFound) and the deployment's EPSS
// availability (any authenticated caller), answered from feed_status.
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter, HandlerContext } from "@connectrpc/connect";
import type { MikroORM } from "@mikro-orm/postgresql";
import {
  EnrichmentFeedService,
  FeedRunSchema,
  type FeedRun,
} from "@sca/proto/sca/scannerrunner/v1/enrichment_feeds_pb.ts";
import { ProblemError } from "@sca/problem";
import { requireCaller, requireSuperAdmin } from "@sca/rpc";
import { isSnapshotStale, type FeedName } from "../domain/feeds/feed-status.ts";
import { REFRESHABLE_FEEDS, type FeedRefreshRequests, type RefreshableFeed } from "../feeds/feed-refresh-requests.ts";
import type { FeedSettings } from "../feeds/feed-settings.ts";
import type { FeedStatusRow } from "../store/entities/enrichment-feeds.ts";
import { feedStatus } from "../store/feed-status.ts";
import { currentStatus } from "../vulndb/import-advisories.ts";

export interface EnrichmentFeedDeps {
  orm: MikroORM;
  settings: FeedSettings;
  refreshes: FeedRefreshRequests;
}

const ts = (d: Date | null | undefined) => (d ? timestampFromDate(d) : undefined);

function count(row: FeedStatusRow | null, name: string): bigint {
  const v = row?.counts[name];
  return typeof v === "number" ? BigInt(v) : 0n;
}

function runOf(row: FeedStatusRow | null, enabled: boolean): FeedRun {
  return create(FeedRunSchema, {
    enabled,
    lastAttemptAt: ts(row?.lastAttemptAt),
    lastResult: row?.lastResult ?? "never",
    lastSyncedAt: ts(row?.lastSyncedAt),
    nextRefreshAt: ts(row?.nextRefreshAt),
    ...(row?.durationMs === null || row?.durationMs === undefined ? {} : { durationMs: BigInt(row.durationMs) }),
    skippedReason: row?.skippedReason ?? "",
    feedHost: row?.feedHost ?? "",
  });
}

export function registerEnrichmentFeedService(router: ConnectRouter, deps: EnrichmentFeedDeps): void {
  const status = (feed: FeedName) => feedStatus(deps.orm.em.fork(), feed);
  const { settings } = deps;
  router.service(EnrichmentFeedService, {
    refreshFeed(req, ctx: HandlerContext) {
      requireSuperAdmin(ctx);
      const feed = req.feed as RefreshableFeed;
      if (!REFRESHABLE_FEEDS.includes(feed))
        throw ProblemError.validation([{ path: "feed", message: `one of ${REFRESHABLE_FEEDS.join(", ")}` }]);
      const requestedAt = new Date();
      deps.refreshes.request(feed);
      return { feed, requestedAt: timestampFromDate(requestedAt) };
    },
    async getAdvisoryDatabaseVersion(_req, ctx: HandlerContext) {
      requireCaller(ctx);
      const row = await currentStatus(deps.orm.em.fork());
      return { databaseVersion: row?.databaseVersion ?? "", lastSucceededAt: ts(row?.lastSucceededAt) };
    },
    async getAdvisoryDatabaseStatus(_req, ctx: HandlerContext) {
      requireSuperAdmin(ctx);
      const row = await currentStatus(deps.orm.em.fork());
      if (!row) return { lastResult: "never" };
      return {
        source: row.source,
        databaseVersion: row.databaseVersion,
        lastAttemptAt: ts(row.lastAttemptAt),
        lastResult: row.lastResult,
        lastSucceededAt: ts(row.lastSucceededAt),
        durationMs: BigInt(row.durationMs),
        advisoryCount: BigInt(row.advisoryCount),
        addedCount: BigInt(row.addedCount),
        updatedCount: BigInt(row.updatedCount),
        unchangedCount: BigInt(row.unchangedCount),
        removedCount: BigInt(row.removedCount),
        withdrawnCount: BigInt(row.withdrawnCount),
        skippedCount: BigInt(row.skippedCount),
        skippedReasons: row.skippedReasons,
        failure: row.failure ?? "",
      };
    },
    async getKnownExploitedFeedStatus(_req, ctx: HandlerContext) {
      requireSuperAdmin(ctx);
      const row = await status("kev");
      return {
        run: runOf(row, settings.kev.enabled),
        feedCount: count(row, "feed_count"),
        listed: count(row, "listed"),
        delisted: count(row, "delisted"),
        kevFlaggedTotal: count(row, "kev_flagged_total"),
      };
    },
    async getEndOfLifeDatasetStatus(_req, ctx: HandlerContext) {
      requireSuperAdmin(ctx);
      const row = await status("eol");
      return {
        run: runOf(row, settings.eol.enabled),
        refreshEnabled: settings.eol.refreshEnabled,
        productCount: count(row, "product_count"),
        ruleCount: count(row, "rule_count"),
        snapshotDate: row?.snapshotDate ?? "",
        snapshotOrigin: row?.snapshotOrigin ?? "",
        stamped: count(row, "stamped"),
        eolFlaggedTotal: count(row, "eol_flagged_total"),
        cleared: count(row, "cleared"),
      };
    },
    async getMaliciousSnapshotStatus(_req, ctx: HandlerContext) {
      requireSuperAdmin(ctx);
      const row = await status("malicious");
      const ecosystems = row?.counts.ecosystems;
      return {
        run: runOf(row, settings.malicious.enabled),
        refreshEnabled: settings.malicious.refreshEnabled,
        ecosystems: Array.isArray(ecosystems) ? ecosystems : [],
        purlCount: count(row, "purl_count"),
        snapshotDate: row?.snapshotDate ?? "",
        snapshotStale: isSnapshotStale(row?.snapshotDate ?? null, new Date(), settings.malicious.staleDays),
        stamped: count(row, "stamped"),
        flaggedTotal: count(row, "flagged_total"),
        newlyFlagged: count(row, "newly_flagged"),
      };
    },
    async getEpssAvailability(_req, ctx: HandlerContext) {
      requireCaller(ctx);
      const row = await status("epss");
      const scored = count(row, "scored_cves");
      return {
        available: scored > 0n,
        lastSyncedAt: ts(row?.lastSyncedAt),
        refreshEnabled: settings.epss.enabled,
        scoredCves: scored,
      };
    },
  });
}
