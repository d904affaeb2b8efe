// The enrichment feeds against a real local HTTP server serving the shared data set: the first start fills every
// feed (vendored snapshots, then the live feeds), the panels show it, the read interface answers from it, and a
// failed, truncated, corrupt or slow download leaves the stored data as it was.
import { randomUUID } from "node:crypto";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { Code } from "@connectrpc/connect";
import { createLogger } from "@sca/log";
import { EnrichmentFeedService } from "@sca/proto/sca/scannerrunner/v1/enrichment_feeds_pb.ts";
import { closeTogether, callAs, sharedDir, startService, type TestService } from "@sca/testkit";
import { eolFeed } from "../src/feeds/eol-feed.ts";
import { EnrichmentReader } from "../src/feeds/enrichment-reader.ts";
import { epssFeed } from "../src/feeds/epss-feed.ts";
import { refreshFeed } from "../src/feeds/feed-attempt.ts";
import { feedSettingsOf, type FeedConfig, type FeedSettings } from "../src/feeds/feed-settings.ts";
import { kevFeed } from "../src/feeds/kev-feed.ts";
import { service } from "../src/service.ts";
import { KevEntryRecord } from "../src/store/entities/enrichment-feeds.ts";
import { recordFeedCounts } from "../src/store/feed-status.ts";
import { eventually } from "./support/scan-jobs.ts";
import { startFeedServer, type FeedServer } from "./support/feed-server.ts";

let feeds: FeedServer;
let runner: TestService;
let config: FeedConfig;
const logger = createLogger("enrichment-feeds-test", "ERROR");
const never = new AbortController().signal;

const client = () => runner.client(EnrichmentFeedService);
const settings = (change: Partial<FeedConfig> = {}): FeedSettings => feedSettingsOf({ ...config, ...change });

beforeAll(async () => {
  feeds = await startFeedServer();
  config = {
    KEV_FEED_URL: `${feeds.url}/kev.json`,
    KEV_REFRESH_ENABLED: true,
    KEV_REFRESH_TIMEOUT_SECONDS: 10,
    EPSS_FEED_URL: `${feeds.url}/epss.csv.gz`,
    EPSS_REFRESH_ENABLED: true,
    EPSS_REFRESH_TIMEOUT_SECONDS: 10,
    EOL_ENABLED: true,
    EOL_SNAPSHOT_PATH: "",
    EOL_REFRESH_ENABLED: true,
    EOL_FEED_URL_TEMPLATE: `${feeds.url}/eol/{product}.json`,
    EOL_REFRESH_TIMEOUT_SECONDS: 5,
    MALICIOUS_ENABLED: true,
    MALICIOUS_REFRESH_ENABLED: false,
    MALICIOUS_SNAPSHOT_PATH: "",
    MALICIOUS_SNAPSHOT_STALE_DAYS: 60,
  };
  const env = Object.fromEntries(Object.entries(config).map(([k, v]) => [k, String(v)]));
  runner = await startService(service, {
    env: { ...env, TASK_WORKER_CONCURRENCY: "1", TASK_WORKER_AUTOMATIC_CONCURRENCY: "0" },
    // Only the check at start: the tests below run the refreshes themselves.
    seams: { feedCheckEveryMs: 3_600_000 },
  });
  const admin = await callAs.superAdmin(randomUUID());
  await eventually(
    async () => (await client().getMaliciousSnapshotStatus({}, admin)).purlCount > 0n,
    "the start-up check has filled every feed",
    60_000,
  );
}, 120_000);

afterAll(async () => {
  await closeTogether([runner, feeds]);
});

describe("the first start", () => {
  it("syncs the known-exploited catalog over the vendored one and shows it on the panel", async () => {
    const panel = await client().getKnownExploitedFeedStatus({}, await callAs.superAdmin(randomUUID()));
    expect(panel.run).toMatchObject({
      enabled: true,
      lastResult: "synced",
      skippedReason: "",
      feedHost: new URL(feeds.url).host,
    });
    expect(panel.run?.lastAttemptAt).toBeDefined();
    expect(panel.run?.lastSyncedAt).toBeDefined();
    expect(panel.run?.durationMs).toBeGreaterThanOrEqual(0n);
    // Daily.
    const next = Number(panel.run!.nextRefreshAt!.seconds) - Number(panel.run!.lastAttemptAt!.seconds);
    expect(next).toBe(86_400);
    // The vendored catalog (1404) was loaded first; the served one lacks three of its entries.
    expect(panel).toMatchObject({ feedCount: 1401n, listed: 0n, delisted: 3n });
    expect(feeds.requests).toContain("/kev.json");
    const reader = new EnrichmentReader(runner.orm, settings());
    expect(await reader.kevEntryOf("cve-2025-43300")).toMatchObject({ dueDate: "2025-09-11", vendorProject: "Apple" });
    // One of the three the served catalog dropped.
    expect(await reader.kevEntryOf("CVE-2025-48384")).toBeNull();
  });

  it("loads FIRST's gzip file and answers the deployment's EPSS availability to any caller", async () => {
    const member = await callAs.user(randomUUID());
    const availability = await client().getEpssAvailability({}, member);
    expect(availability).toMatchObject({ available: true, refreshEnabled: true, scoredCves: 9228n });
    expect(availability.lastSyncedAt).toBeDefined();
    const scores = await new EnrichmentReader(runner.orm, settings()).epssOf(["CVE-1999-0087", "CVE-2099-0001"]);
    expect([...scores]).toEqual([["CVE-1999-0087", { score: 0.01372, percentile: 0.69604 }]]);
  });

  it("sweeps the end-of-life products live after loading the vendored snapshot", async () => {
    const panel = await client().getEndOfLifeDatasetStatus({}, await callAs.superAdmin(randomUUID()));
    expect(panel).toMatchObject({
      refreshEnabled: true,
      productCount: 73n,
      snapshotOrigin: "live",
      run: { enabled: true, lastResult: "synced", feedHost: new URL(feeds.url).host },
    });
    expect(panel.ruleCount).toBeGreaterThan(1000n);
    expect(feeds.requests).toContain("/eol/nodejs.json");
    const reader = new EnrichmentReader(runner.orm, settings());
    expect(await reader.eolOf("pkg:npm/express@3.21.2", undefined, new Date("2026-11-24"))).toMatchObject({
      product: "express",
      cycle: "3",
      state: "eol",
    });
    expect(await reader.eolOf("pkg:npm/left-pad@1.3.0")).toBeNull();
  });

  it("loads the vendored malicious snapshot, and marks it stale and its refresh skipped", async () => {
    const panel = await client().getMaliciousSnapshotStatus({}, await callAs.superAdmin(randomUUID()));
    expect(panel).toMatchObject({
      refreshEnabled: false,
      ecosystems: ["Go", "Maven", "NuGet", "PyPI", "RubyGems", "crates.io", "npm"],
      snapshotDate: "2025-06-04",
      snapshotStale: true,
      run: { enabled: true, lastResult: "skipped" },
    });
    expect(panel.run?.skippedReason).toContain("MALICIOUS_REFRESH_ENABLED");
    expect(panel.purlCount).toBeGreaterThan(1700n);
    const reader = new EnrichmentReader(runner.orm, settings());
    expect(await reader.maliciousVerdict("npm", "angular-codemirror", "1.0.0")).toEqual({
      state: "flagged",
      id: "MAL-2022-1005",
      source: "ghsa-malware",
    });
    expect(await reader.maliciousVerdict("NuGet", "aerowizard.NET", "2.3.1")).toMatchObject({ id: "MAL-2024-3997" });
    expect(await reader.maliciousVerdict("NuGet", "AeroWizard.Net", "2.3.0")).toEqual({ state: "clear" });
    expect(await reader.maliciousVerdict("npm", "react", "18.2.0")).toEqual({ state: "clear" });
  });

  it("shows the counts the matcher records beside the feed's own", async () => {
    await recordFeedCounts(runner.orm.em.fork(), "kev", { kev_flagged_total: 7 });
    const panel = await client().getKnownExploitedFeedStatus({}, await callAs.superAdmin(randomUUID()));
    expect(panel).toMatchObject({ kevFlaggedTotal: 7n, feedCount: 1401n, delisted: 3n });
  });

  it("shows the panels to a super_admin only", async () => {
    const member = await callAs.user(randomUUID());
    for (const call of [
      () => client().getKnownExploitedFeedStatus({}, member),
      () => client().getEndOfLifeDatasetStatus({}, member),
      () => client().getMaliciousSnapshotStatus({}, member),
    ])
      await expect(call()).rejects.toMatchObject({ code: Code.NotFound });
    await expect(client().getEpssAvailability({})).rejects.toMatchObject({ code: Code.Unauthenticated });
  });
});

describe("a failed refresh", () => {
  const admin = () => callAs.superAdmin(randomUUID());

  it.each([
    ["a truncated catalog", "/kev-truncated.json", "not JSON"],
    ["a catalog that is not CISA's", "/kev-not-cisa.json", "CISA's schema"],
    ["a missing catalog", "/nothing.json", "HTTP 404"],
  ])("keeps the stored catalog after %s", async (_what, path, reason) => {
    const result = await refreshFeed(
      kevFeed,
      runner.orm,
      settings({ KEV_FEED_URL: `${feeds.url}${path}` }),
      logger,
      never,
      true,
    );
    expect(result).toBe("failed");
    const panel = await client().getKnownExploitedFeedStatus({}, await admin());
    expect(panel.run).toMatchObject({ lastResult: "failed" });
    expect(panel.run?.skippedReason).toContain(reason);
    // Retried an hour later, not a day.
    expect(Number(panel.run!.nextRefreshAt!.seconds) - Number(panel.run!.lastAttemptAt!.seconds)).toBe(3600);
    expect(panel.feedCount).toBe(1401n);
    expect(await runner.orm.em.fork().count(KevEntryRecord, {})).toBe(1401);
  });

  it("keeps the stored catalog when the feed does not answer in time", async () => {
    const slow = settings({ KEV_FEED_URL: `${feeds.url}/slow`, KEV_REFRESH_TIMEOUT_SECONDS: 1 });
    expect(await refreshFeed(kevFeed, runner.orm, slow, logger, never, true)).toBe("failed");
    const panel = await client().getKnownExploitedFeedStatus({}, await admin());
    expect(panel.run?.skippedReason).toContain("took longer than 1 s");
    expect(panel.feedCount).toBe(1401n);
  });

  it.each([
    ["a truncated gzip", "/epss-truncated.csv.gz"],
    ["a bad row after every good one", "/epss-bad-last-row.csv.gz"],
    ["a missing file", "/nothing.csv.gz"],
  ])("keeps every stored EPSS score after %s", async (_what, path) => {
    expect(
      await refreshFeed(epssFeed, runner.orm, settings({ EPSS_FEED_URL: `${feeds.url}${path}` }), logger, never, true),
    ).toBe("failed");
    const availability = await client().getEpssAvailability({}, await admin());
    expect(availability).toMatchObject({ available: true, scoredCves: 9228n });
    const scores = await new EnrichmentReader(runner.orm, settings()).epssOf(["CVE-1999-0087"]);
    expect(scores.get("CVE-1999-0087")?.score).toBe(0.01372);
  });

  it("reads a plain (not gzip) EPSS file too", async () => {
    const plain = settings({ EPSS_FEED_URL: `${feeds.url}/epss-plain.csv` });
    expect(await refreshFeed(epssFeed, runner.orm, plain, logger, never, true)).toBe("synced");
    expect((await client().getEpssAvailability({}, await admin())).scoredCves).toBe(9228n);
  });

  it("records a disabled refresh as skipped with the key that turned it off", async () => {
    const off = settings({ KEV_REFRESH_ENABLED: false });
    expect(await refreshFeed(kevFeed, runner.orm, off, logger, never, true)).toBe("skipped");
    const panel = await client().getKnownExploitedFeedStatus({}, await admin());
    expect(panel.run).toMatchObject({ lastResult: "skipped", skippedReason: "KEV_REFRESH_ENABLED is false" });
    expect(panel.feedCount).toBe(1401n);
  });
});

describe("the end-of-life sweep", () => {
  it("stops at the sweep's cap and keeps the products it did not reach", async () => {
    feeds.eolDelayMs = 150;
    try {
      const capped = { ...settings(), eol: { ...settings().eol, sweepCapMs: 1000 } };
      expect(await refreshFeed(eolFeed, runner.orm, capped, logger, never, true)).toBe("synced");
    } finally {
      feeds.eolDelayMs = 0;
    }
    const panel = await client().getEndOfLifeDatasetStatus({}, await callAs.superAdmin(randomUUID()));
    expect(panel.productCount).toBe(73n);
    // Uncapped, the 73 products at 150 ms each take about 11 s; well below that shows the cap stopped the sweep,
    // with room for a loaded machine (a full suite run measured 2.7 s).
    expect(panel.run?.durationMs).toBeLessThan(5000n);
  });

  it("gives each product its own timeout, and fails only when none could be fetched", async () => {
    feeds.eolDelayMs = 1500;
    try {
      const slow = settings({ EOL_REFRESH_TIMEOUT_SECONDS: 1 });
      const capped = { ...slow, eol: { ...slow.eol, sweepCapMs: 2500 } };
      expect(await refreshFeed(eolFeed, runner.orm, capped, logger, never, true)).toBe("failed");
    } finally {
      feeds.eolDelayMs = 0;
    }
    const panel = await client().getEndOfLifeDatasetStatus({}, await callAs.superAdmin(randomUUID()));
    const [, failed, unreached] = /no end-of-life product could be fetched \((\d+) failed, (\d+) not reached/.exec(
      panel.run?.skippedReason ?? "",
    )!;
    // Each product gave up after its own second, so the 2.5 s sweep reached two or three of them.
    expect(Number(failed)).toBeGreaterThanOrEqual(2);
    expect(Number(failed) + Number(unreached)).toBe(73);
    expect(panel.productCount).toBe(73n);
  });

  it("takes the operator's snapshot (EOL_SNAPSHOT_PATH) over the vendored one", async () => {
    const dir = mkdtempSync(join(tmpdir(), "eol-override-"));
    try {
      for (const p of ["nodejs", "django"])
        cpSync(join(sharedDir(), "data", "eol", `${p}.json`), join(dir, `${p}.json`));
      expect(await eolFeed.loadSnapshot(runner.orm, settings({ EOL_SNAPSHOT_PATH: dir }))).toBe(true);
      const panel = await client().getEndOfLifeDatasetStatus({}, await callAs.superAdmin(randomUUID()));
      expect(panel).toMatchObject({ productCount: 2n, snapshotOrigin: "override" });
      const reader = new EnrichmentReader(runner.orm, settings());
      expect(await reader.eolOf("pkg:pypi/django@1.11.29", undefined, new Date("2026-11-24"))).toMatchObject({
        state: "eol",
        cycle: "1.11",
      });
      expect(await reader.eolOf("pkg:npm/express@3.21.2")).toBeNull();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
