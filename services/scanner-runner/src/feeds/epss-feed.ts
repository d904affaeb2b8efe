// EPSS scores: FIRST's daily CSV (gzip as published, or plain) from EPSS_FEED_URL, parsed by csv-parse as it
// arrives and written in batches inside one transaction (memory stays at one batch; a broken or corrupt download
// rolls the whole load back, so the stored scores stay). The vendored file fills an empty table.
import { createReadStream } from "node:fs";
import type { Readable } from "node:stream";
import type { MikroORM } from "@mikro-orm/postgresql";
import { parse } from "csv-parse";
import { downloadStream, inflatedIfGzip } from "../clients/feed-download.ts";
import { epssScoreDateOf, epssScoreOf, type EpssScore } from "../domain/feeds/epss.ts";
import { feedHostOf } from "../domain/feeds/feed-status.ts";
import { addEpssScores, clearEpssScores, epssScoreCount } from "../store/epss-scores.ts";
import { queueEnrichmentUpdate } from "../store/pending-refreshes.ts";
import { loadSnapshotOnce, type EnrichmentFeed, type FeedOutcome } from "./feed-attempt.ts";
import { VENDORED, VENDORED_DATES } from "./feed-settings.ts";

const BATCH = 2000;
/** FIRST scores about 300,000 CVEs; a file far beyond that is not an EPSS file. */
const MAX_ROWS = 2_000_000;

/** Reads the CSV from `csv` into the table, replacing it; returns the CVEs scored and the file's score date. */
async function loadScores(orm: MikroORM, csv: Readable): Promise<{ scored: number; scoreDate: string | null }> {
  let scoreDate: string | null = null;
  const parser = parse({
    columns: (header: string[]) => {
      const names = header.map((h) => h.trim().toLowerCase());
      if (!names.includes("cve") || !names.includes("epss") || !names.includes("percentile"))
        throw new Error("the EPSS file has no cve,epss,percentile header");
      return names;
    },
    comment: "#",
    skip_empty_lines: true,
    trim: true,
  });
  // The comment line (`#model_version:...,score_date:...`) is read before csv-parse drops it.
  let head = "";
  csv.on("data", (chunk: Buffer) => {
    if (head.length < 256) head += chunk.toString("utf8", 0, Math.min(chunk.length, 256));
  });
  csv.on("error", (err) => parser.destroy(err));
  csv.pipe(parser);
  return orm.em.fork().transactional(async (em) => {
    await clearEpssScores(em);
    let batch: EpssScore[] = [];
    let rows = 0;
    for await (const record of parser as AsyncIterable<Record<string, string>>) {
      rows++;
      if (rows > MAX_ROWS) throw new Error(`the EPSS file has more than ${MAX_ROWS} rows`);
      const score = epssScoreOf(record);
      if (!score) throw new Error(`the EPSS file's row ${rows} is not a CVE with two numbers between 0 and 1`);
      batch.push(score);
      if (batch.length >= BATCH) {
        await addEpssScores(em, batch);
        batch = [];
      }
    }
    await addEpssScores(em, batch);
    if (head.startsWith("#")) scoreDate = epssScoreDateOf(head.split("\n")[0]!);
    const scored = await epssScoreCount(em);
    // The findings learn the new scores (refresh-propagation.ts).
    await queueEnrichmentUpdate(em, "epss");
    if (scored === 0) throw new Error("the EPSS file scores no CVE");
    return { scored, scoreDate };
  });
}

function outcomeOf(
  loaded: { scored: number; scoreDate: string | null },
  origin: string,
  date: string | null,
): FeedOutcome {
  return { counts: { scored_cves: loaded.scored }, snapshotDate: loaded.scoreDate ?? date, snapshotOrigin: origin };
}

export const epssFeed: EnrichmentFeed = {
  name: "epss",
  loadSnapshot: (orm, settings) =>
    loadSnapshotOnce(
      orm,
      "epss",
      settings.leaseMs,
      async () => (await epssScoreCount(orm.em.fork())) === 0,
      async () => {
        const csv = await inflatedIfGzip(createReadStream(VENDORED.epssScores));
        return outcomeOf(await loadScores(orm, csv), "vendored", VENDORED_DATES.epss);
      },
    ),
  skippedReason: (settings) => (settings.epss.enabled ? undefined : "EPSS_REFRESH_ENABLED is false"),
  feedHost: (settings) => feedHostOf(settings.epss.url),
  async refresh(orm, { epss }, signal) {
    const csv = await downloadStream(epss.url, { timeoutMs: epss.timeoutMs, signal });
    return outcomeOf(await loadScores(orm, csv), "live", new Date().toISOString().slice(0, 10));
  },
};
