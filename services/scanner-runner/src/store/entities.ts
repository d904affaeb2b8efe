import type { DatabaseOptions } from "@sca/db";
import {
  EolProductRecord,
  EpssScoreRecord,
  FeedStatus,
  KevEntryRecord,
  MaliciousPackageRecord,
} from "./entities/enrichment-feeds.ts";
import { KnownScanState } from "./entities/known-scan-state.ts";
import { LateRegistryLookup } from "./entities/late-registry-lookup.ts";
import { ScancodeFileResult } from "./entities/scancode-file-result.ts";
import { VulndbAdvisory } from "./entities/vulndb-advisory.ts";
import { VulndbImport } from "./entities/vulndb-import.ts";
import { VulndbPendingEnrichmentUpdate, VulndbRematchPackage } from "./entities/vulndb-pending-refresh.ts";
import { VulndbStagedAdvisory } from "./entities/vulndb-staged-advisory.ts";

/** The tables of the scanner-runner schema (the outbox and processed_events come with its Kafka use). */
export const entities: DatabaseOptions["entities"] = [
  KnownScanState,
  VulndbAdvisory,
  VulndbImport,
  VulndbStagedAdvisory,
  VulndbRematchPackage,
  VulndbPendingEnrichmentUpdate,
  FeedStatus,
  KevEntryRecord,
  EpssScoreRecord,
  EolProductRecord,
  MaliciousPackageRecord,
  ScancodeFileResult,
  LateRegistryLookup,
];
