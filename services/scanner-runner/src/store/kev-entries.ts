// Reads and writes of kev_entries: the stored known-exploited catalog.
import type { EntityManager } from "@mikro-orm/postgresql";
import { SNAPSHOT } from "@sca/db";
import type { KevEntry } from "../domain/feeds/kev.ts";
import { KevEntryRecord, type KevEntryRow } from "./entities/enrichment-feeds.ts";

const BATCH = 1000;

export async function storedKevIds(em: EntityManager): Promise<Set<string>> {
  const rows = await em.find(KevEntryRecord, {}, { ...SNAPSHOT, fields: ["cveId"] });
  return new Set(rows.map((r) => r.cveId));
}

export async function kevEntryCount(em: EntityManager): Promise<number> {
  return em.count(KevEntryRecord, {});
}

/** Replaces the whole catalog; run inside the caller's transaction so readers see the old one until it commits. */
export async function replaceKevCatalog(em: EntityManager, entries: readonly KevEntry[]): Promise<void> {
  await em.nativeDelete(KevEntryRecord, {});
  for (let i = 0; i < entries.length; i += BATCH) await em.insertMany(KevEntryRecord, entries.slice(i, i + BATCH));
}

export async function kevEntriesOf(em: EntityManager, cveIds: readonly string[]): Promise<KevEntryRow[]> {
  if (cveIds.length === 0) return [];
  return em.find(KevEntryRecord, { cveId: { $in: [...cveIds] } }, SNAPSHOT);
}
