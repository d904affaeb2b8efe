// What the enrichment feeds are told by the configuration (docs/enrichment-feeds.md), and where the vendored
// snapshots live.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export interface FeedSettings {
  kev: { enabled: boolean; url: string; timeoutMs: number };
  epss: { enabled: boolean; url: string; timeoutMs: number };
  eol: {
    enabled: boolean;
    /** A directory of <product>.json files replacing the vendored one; empty: vendored. */
    snapshotPath: string;
    refreshEnabled: boolean;
    urlTemplate: string;
    perProductTimeoutMs: number;
    /** The whole live sweep (the spec's 60 s). */
    sweepCapMs: number;
  };
  malicious: { enabled: boolean; refreshEnabled: boolean; snapshotPath: string; staleDays: number };
  /** How long an instance holds a feed's lease: longer than any refresh may take. */
  leaseMs: number;
  /** After a failed attempt, the next one comes this much later (ours: an hour). */
  retryAfterFailureMs: number;
}

/** The vendored snapshots, shipped with the service (services/scanner-runner/data, SOURCES.md in each folder). */
export const VENDORED = {
  dir: fileURLToPath(new URL("../../data/", import.meta.url)),
  kevCatalog: fileURLToPath(new URL("../../data/kev/known_exploited_vulnerabilities.json", import.meta.url)),
  kevSchema: fileURLToPath(new URL("../../data/kev/known_exploited_vulnerabilities_schema.json", import.meta.url)),
  epssScores: fileURLToPath(new URL("../../data/epss/epss_scores.csv.gz", import.meta.url)),
  eolDir: fileURLToPath(new URL("../../data/eol/", import.meta.url)),
  maliciousDir: fileURLToPath(new URL("../../data/malicious/", import.meta.url)),
};

/** The date of each vendored snapshot (data/snapshot-dates.json). */
export const VENDORED_DATES = JSON.parse(
  readFileSync(fileURLToPath(new URL("../../data/snapshot-dates.json", import.meta.url)), "utf8"),
) as Record<"kev" | "epss" | "eol" | "malicious", string>;

export interface FeedConfig {
  KEV_FEED_URL: string;
  KEV_REFRESH_ENABLED: boolean;
  KEV_REFRESH_TIMEOUT_SECONDS: number;
  EPSS_FEED_URL: string;
  EPSS_REFRESH_ENABLED: boolean;
  EPSS_REFRESH_TIMEOUT_SECONDS: number;
  EOL_ENABLED: boolean;
  EOL_SNAPSHOT_PATH: string;
  EOL_REFRESH_ENABLED: boolean;
  EOL_FEED_URL_TEMPLATE: string;
  EOL_REFRESH_TIMEOUT_SECONDS: number;
  MALICIOUS_ENABLED: boolean;
  MALICIOUS_REFRESH_ENABLED: boolean;
  MALICIOUS_SNAPSHOT_PATH: string;
  MALICIOUS_SNAPSHOT_STALE_DAYS: number;
}

export function feedSettingsOf(config: FeedConfig): FeedSettings {
  return {
    kev: {
      enabled: config.KEV_REFRESH_ENABLED,
      url: config.KEV_FEED_URL,
      timeoutMs: config.KEV_REFRESH_TIMEOUT_SECONDS * 1000,
    },
    epss: {
      enabled: config.EPSS_REFRESH_ENABLED,
      url: config.EPSS_FEED_URL,
      timeoutMs: config.EPSS_REFRESH_TIMEOUT_SECONDS * 1000,
    },
    eol: {
      enabled: config.EOL_ENABLED,
      snapshotPath: config.EOL_SNAPSHOT_PATH,
      refreshEnabled: config.EOL_REFRESH_ENABLED,
      urlTemplate: config.EOL_FEED_URL_TEMPLATE,
      perProductTimeoutMs: config.EOL_REFRESH_TIMEOUT_SECONDS * 1000,
      sweepCapMs: 60_000,
    },
    malicious: {
      enabled: config.MALICIOUS_ENABLED,
      refreshEnabled: config.MALICIOUS_REFRESH_ENABLED,
      snapshotPath: config.MALICIOUS_SNAPSHOT_PATH,
      staleDays: config.MALICIOUS_SNAPSHOT_STALE_DAYS,
    },
    leaseMs: 15 * 60_000,
    retryAfterFailureMs: 3_600_000,
  };
}
