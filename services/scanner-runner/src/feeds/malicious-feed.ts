// The malicious-package snapshot: OSV MAL- records read from a directory (the vendored one, or MALICIOUS_SNAPSHOT_PATH
// laid out as ossf/malicious-packages is, any depth) and stored whole; MALICIOUS_REFRESH_ENABLED rebuilds it weekly.
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { MikroORM } from "@mikro-orm/postgresql";
import { dayOf } from "../domain/feeds/feed-status.ts";
import { readMaliciousRecord, type MaliciousRecord } from "../domain/feeds/malicious.ts";
import { replaceMaliciousPackages } from "../store/malicious-packages.ts";
import { feedStatus } from "../store/feed-status.ts";
import { queueEnrichmentUpdate } from "../store/pending-refreshes.ts";
import { loadSnapshotOnce, type EnrichmentFeed, type FeedOutcome } from "./feed-attempt.ts";
import { VENDORED, VENDORED_DATES, type FeedSettings } from "./feed-settings.ts";

export interface MaliciousSnapshot {
  records: MaliciousRecord[];
  /** Files that were not MAL- records (skipped, counted). */
  skipped: number;
  /** The newest `modified` date of its records (YYYY-MM-DD). */
  newestModified: string | null;
}

export async function readMaliciousSnapshot(dir: string): Promise<MaliciousSnapshot> {
  const files = (await readdir(dir, { recursive: true })).filter((f) => /(^|\/)MAL-[^/]*\.json$/.test(f)).sort();
  const records: MaliciousRecord[] = [];
  let skipped = 0;
  let newestModified: string | null = null;
  for (const file of files) {
    let json: unknown;
    try {
      json = JSON.parse(await readFile(join(dir, file), "utf8"));
    } catch {
      skipped++;
      continue;
    }
    const read = readMaliciousRecord(json);
    if (!read) {
      skipped++;
      continue;
    }
    records.push(...read);
    const modified = (json as { modified?: unknown }).modified;
    if (typeof modified === "string" && (!newestModified || modified.slice(0, 10) > newestModified))
      newestModified = modified.slice(0, 10);
  }
  if (records.length === 0) throw new Error("the malicious-package snapshot holds no MAL- record");
  return { records, skipped, newestModified };
}

function countsOf(snapshot: MaliciousSnapshot) {
  const packages = new Set(snapshot.records.map((r) => `${r.ecosystem}\u0000${r.name}`));
  return {
    purl_count: packages.size,
    record_count: new Set(snapshot.records.map((r) => r.id)).size,
    skipped_files: snapshot.skipped,
    ecosystems: [...new Set(snapshot.records.map((r) => r.ecosystem))].sort(),
  };
}

async function build(orm: MikroORM, settings: FeedSettings): Promise<FeedOutcome> {
  const override = settings.malicious.snapshotPath;
  const snapshot = await readMaliciousSnapshot(override || VENDORED.maliciousDir);
  await orm.em.fork().transactional(async (em) => {
    await replaceMaliciousPackages(em, snapshot.records);
    // The inventories are re-stamped with it (vulndb/refresh-propagation.ts).
    await queueEnrichmentUpdate(em, "malicious");
  });
  return {
    counts: countsOf(snapshot),
    snapshotDate: override ? (snapshot.newestModified ?? dayOf(new Date())) : VENDORED_DATES.malicious,
    snapshotOrigin: override ? "override" : "vendored",
  };
}

export const maliciousFeed: EnrichmentFeed = {
  name: "malicious",
  loadSnapshot(orm, settings) {
    const origin = settings.malicious.snapshotPath ? "override" : "vendored";
    return loadSnapshotOnce(
      orm,
      "malicious",
      settings.leaseMs,
      async (stored) =>
        stored !== origin || (await feedStatus(orm.em.fork(), "malicious"))?.counts.purl_count === undefined,
      () => build(orm, settings),
    );
  },
  skippedReason: ({ malicious }) =>
    !malicious.enabled
      ? "MALICIOUS_ENABLED is false"
      : !malicious.refreshEnabled
        ? "MALICIOUS_REFRESH_ENABLED is false (the snapshot is used)"
        : undefined,
  feedHost: () => "",
  refresh: (orm, settings) => build(orm, settings),
};
