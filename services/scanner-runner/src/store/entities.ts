import type { DatabaseOptions } from "@sca/db";
import {
  EolProductRecord,
  EpssScoreRecord,
  FeedStatus,
  KevEntryRecord,
  MaliciousPackageRecord,
} from "./entities/enrichment-feeds.ts";
import { KnownScanState } from "./entities/known-scan-state.ts";

/** The tables of the scanner-runner schema (the outbox and processed_events come with its Kafka use). */
export const entities: DatabaseOptions["entities"] = [
  KnownScanState,
  FeedStatus,
  KevEntryRecord,
  EpssScoreRecord,
  EolProductRecord,
  MaliciousPackageRecord,
];
