// The scanner-runner's enrichment feed panels as the spec's JSON (snake_case, ISO 8601 UTC times, null for what
// never happened), each with the zod schema that documents it.
import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import { z } from "zod";
import type {
  FeedRun,
  GetAdvisoryDatabaseStatusResponse,
  GetEndOfLifeDatasetStatusResponse,
  GetEpssAvailabilityResponse,
  GetKnownExploitedFeedStatusResponse,
  GetMaliciousSnapshotStatusResponse,
} from "@sca/proto/sca/scannerrunner/v1/enrichment_feeds_pb.ts";

const isoOrNull = (t: Timestamp | undefined) => (t ? timestampDate(t).toISOString() : null);
const orNull = (s: string) => (s === "" ? null : s);
const count = (description: string) => z.number().int().min(0).meta({ description });
const when = (description: string) => z.iso.datetime().nullable().meta({ description });

/** The fields every panel has. */
const runShape = {
  enabled: z.boolean().meta({ description: "Whether the feed is used at all" }),
  last_attempt_at: when("When a refresh was last attempted (or skipped); null before the first"),
  last_result: z.enum(["never", "synced", "failed", "skipped"]).meta({ description: "How that attempt ended" }),
  last_synced_at: when("When a refresh last succeeded; null when none has"),
  next_refresh_at: when("When the next attempt is due; null before the first check"),
  duration_ms: z.number().int().min(0).nullable().meta({ description: "How long the last attempt took" }),
  skipped_reason: z
    .string()
    .nullable()
    .meta({ description: "Why the last attempt did nothing (the key that turned it off) or what failed" }),
  feed_host: z.string().nullable().meta({ description: "The host fetched (never the URL's path or query)" }),
};

function runJson(run: FeedRun | undefined) {
  return {
    enabled: run?.enabled ?? false,
    last_attempt_at: isoOrNull(run?.lastAttemptAt),
    last_result: (run?.lastResult || "never") as "never" | "synced" | "failed" | "skipped",
    last_synced_at: isoOrNull(run?.lastSyncedAt),
    next_refresh_at: isoOrNull(run?.nextRefreshAt),
    duration_ms: run?.durationMs === undefined ? null : Number(run.durationMs),
    skipped_reason: orNull(run?.skippedReason ?? ""),
    feed_host: orNull(run?.feedHost ?? ""),
  };
}

export const knownExploitedFeedSchema = z
  .object({
    ...runShape,
    feed_count: count("Entries of the stored catalog"),
    listed: count("CVEs the last sync added to the catalog"),
    delisted: count("CVEs the last sync removed"),
    kev_flagged_total: count("Vulnerabilities the matcher flagged known-exploited"),
  })
  .meta({ id: "KnownExploitedFeedStatus" });

export function knownExploitedFeedJson(
  s: GetKnownExploitedFeedStatusResponse,
): z.input<typeof knownExploitedFeedSchema> {
  return {
    ...runJson(s.run),
    feed_count: Number(s.feedCount),
    listed: Number(s.listed),
    delisted: Number(s.delisted),
    kev_flagged_total: Number(s.kevFlaggedTotal),
  };
}

export const endOfLifeDatasetSchema = z
  .object({
    ...runShape,
    refresh_enabled: z.boolean().meta({ description: "EOL_REFRESH_ENABLED: the live fetch is on" }),
    product_count: count("endoflife.date products held"),
    rule_count: count("Release cycles over every product"),
    snapshot_date: z.string().nullable().meta({ description: "YYYY-MM-DD of the data held" }),
    snapshot_origin: z
      .enum(["vendored", "override", "live"])
      .nullable()
      .meta({ description: "vendored snapshot, the operator's EOL_SNAPSHOT_PATH, or the live fetch" }),
    stamped: count("Components of the projects' newest snapshots with an eol state, at the last re-stamp"),
    eol_flagged_total: count("Of those, components end of life"),
    cleared: count("Components the last re-stamp moved out of end of life"),
  })
  .meta({ id: "EndOfLifeDatasetStatus" });

export function endOfLifeDatasetJson(s: GetEndOfLifeDatasetStatusResponse): z.input<typeof endOfLifeDatasetSchema> {
  return {
    ...runJson(s.run),
    refresh_enabled: s.refreshEnabled,
    product_count: Number(s.productCount),
    rule_count: Number(s.ruleCount),
    snapshot_date: orNull(s.snapshotDate),
    snapshot_origin: orNull(s.snapshotOrigin) as "vendored" | "override" | "live" | null,
    stamped: Number(s.stamped),
    eol_flagged_total: Number(s.eolFlaggedTotal),
    cleared: Number(s.cleared),
  };
}

export const maliciousSnapshotSchema = z
  .object({
    ...runShape,
    refresh_enabled: z.boolean().meta({ description: "MALICIOUS_REFRESH_ENABLED: the weekly rebuild is on" }),
    ecosystems: z.array(z.string()).meta({ description: "OSV ecosystems of the snapshot, sorted" }),
    purl_count: count("Distinct packages the snapshot names"),
    snapshot_date: z.string().nullable().meta({ description: "YYYY-MM-DD of the snapshot" }),
    snapshot_stale: z.boolean().meta({ description: "Older than MALICIOUS_SNAPSHOT_STALE_DAYS" }),
    stamped: count("Components of the projects' newest snapshots with a malicious state, at the last re-stamp"),
    flagged_total: count("Of those, components flagged malicious"),
    newly_flagged: count("Components the last re-stamp newly flagged"),
  })
  .meta({ id: "MaliciousSnapshotStatus" });

export function maliciousSnapshotJson(s: GetMaliciousSnapshotStatusResponse): z.input<typeof maliciousSnapshotSchema> {
  return {
    ...runJson(s.run),
    refresh_enabled: s.refreshEnabled,
    ecosystems: s.ecosystems,
    purl_count: Number(s.purlCount),
    snapshot_date: orNull(s.snapshotDate),
    snapshot_stale: s.snapshotStale,
    stamped: Number(s.stamped),
    flagged_total: Number(s.flaggedTotal),
    newly_flagged: Number(s.newlyFlagged),
  };
}

export const advisoryDatabaseSchema = z
  .object({
    source: z
      .string()
      .nullable()
      .meta({ description: "Where the last import read (a path, or a URL without credentials)" }),
    database_version: z
      .string()
      .nullable()
      .meta({ description: "The advisories' version; changes with each import that changed something" }),
    last_attempt_at: when("When an import was last attempted; null before the first"),
    last_result: z.enum(["never", "imported", "unchanged", "failed"]).meta({ description: "How that import ended" }),
    last_succeeded_at: when("When an import last succeeded; null when none has"),
    duration_ms: z.number().int().min(0).nullable().meta({ description: "How long the last import took" }),
    advisory_count: count("Advisories the last import read"),
    added_count: count("Of those, new"),
    updated_count: count("Of those, changed"),
    unchanged_count: count("Of those, unchanged"),
    removed_count: count("Advisories gone from the source"),
    withdrawn_count: count("Advisories withdrawn"),
    skipped_count: count("Advisories skipped (malformed)"),
    skipped_reasons: z.array(z.string()).meta({ description: 'Up to 20 "file: reason" lines of those skipped' }),
    failure: z.string().nullable().meta({ description: "Why the last import failed" }),
  })
  .meta({ id: "AdvisoryDatabaseStatus" });

export function advisoryDatabaseJson(s: GetAdvisoryDatabaseStatusResponse): z.input<typeof advisoryDatabaseSchema> {
  return {
    source: orNull(s.source),
    database_version: orNull(s.databaseVersion),
    last_attempt_at: isoOrNull(s.lastAttemptAt),
    last_result: s.lastResult as z.input<typeof advisoryDatabaseSchema>["last_result"],
    last_succeeded_at: isoOrNull(s.lastSucceededAt),
    duration_ms: s.durationMs === undefined ? null : Number(s.durationMs),
    advisory_count: Number(s.advisoryCount),
    added_count: Number(s.addedCount),
    updated_count: Number(s.updatedCount),
    unchanged_count: Number(s.unchangedCount),
    removed_count: Number(s.removedCount),
    withdrawn_count: Number(s.withdrawnCount),
    skipped_count: Number(s.skippedCount),
    skipped_reasons: s.skippedReasons,
    failure: orNull(s.failure),
  };
}

export const epssAvailabilitySchema = z
  .object({
    available: z.boolean().meta({ description: "Whether any CVE has an EPSS score in this deployment" }),
    last_synced_at: when("When the scores were last fetched; null when only the vendored snapshot is held"),
    refresh_enabled: z.boolean().meta({ description: "EPSS_REFRESH_ENABLED: the daily fetch is on" }),
    scored_cves: count("CVEs with a score"),
  })
  .meta({ id: "EpssAvailability" });

export function epssAvailabilityJson(s: GetEpssAvailabilityResponse): z.input<typeof epssAvailabilitySchema> {
  return {
    available: s.available,
    last_synced_at: isoOrNull(s.lastSyncedAt),
    refresh_enabled: s.refreshEnabled,
    scored_cves: Number(s.scoredCves),
  };
}
