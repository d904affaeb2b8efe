// Reads and writes of epss_scores: FIRST's scores per CVE.
import type { EntityManager } from "@mikro-orm/postgresql";
import { SNAPSHOT } from "@sca/db";
import type { EpssScore } from "../domain/feeds/epss.ts";
import { EpssScoreRecord, type EpssScoreRow } from "./entities/enrichment-feeds.ts";

/** Empties the table: the first step of a replacement, inside the caller's transaction. */
export async function clearEpssScores(em: EntityManager): Promise<void> {
  await em.nativeDelete(EpssScoreRecord, {});
}

/** Adds a batch of scores (inside the replacement's transaction); a CVE repeated in the file keeps its last score. */
export async function addEpssScores(em: EntityManager, scores: readonly EpssScore[]): Promise<void> {
  if (scores.length === 0) return;
  const unique = [...new Map(scores.map((s) => [s.cveId, s])).values()];
  await em
    .createQueryBuilder(EpssScoreRecord)
    .insert(unique)
    .onConflict("cveId")
    .merge(["score", "percentile"])
    .execute("run");
}

export async function epssScoreCount(em: EntityManager): Promise<number> {
  return em.count(EpssScoreRecord, {});
}

export async function epssScoresOf(em: EntityManager, cveIds: readonly string[]): Promise<EpssScoreRow[]> {
  if (cveIds.length === 0) return [];
  return em.find(EpssScoreRecord, { cveId: { $in: [...cveIds] } }, SNAPSHOT);
}
