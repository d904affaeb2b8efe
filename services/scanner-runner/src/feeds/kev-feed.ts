// The known-exploited catalog: downloaded from KEV_FEED_URL (CISA's JSON), checked against CISA's own JSON schema
// (vendored beside the snapshot), and stored whole in one transaction; the vendored catalog fills an empty table.
import { readFile } from "node:fs/promises";
import type { MikroORM } from "@mikro-orm/postgresql";
import { Ajv } from "ajv";
import addFormats from "ajv-formats";
import { downloadBytes } from "../clients/feed-download.ts";
import { feedHostOf } from "../domain/feeds/feed-status.ts";
import { kevCatalogOf, kevChanges, type KevCatalog } from "../domain/feeds/kev.ts";
import { kevEntryCount, replaceKevCatalog, storedKevIds } from "../store/kev-entries.ts";
import { queueEnrichmentUpdate } from "../store/pending-refreshes.ts";
import { loadSnapshotOnce, type EnrichmentFeed, type FeedOutcome } from "./feed-attempt.ts";
import { VENDORED } from "./feed-settings.ts";

/** Far above the real catalog (1.3 MB for 1,400 entries in 2025). */
const KEV_MAX_BYTES = 64 * 1024 * 1024;

const validateCatalog = (async () => {
  const ajv = new Ajv({ allErrors: false, strict: false });
  addFormats.default(ajv);
  return ajv.compile(JSON.parse(await readFile(VENDORED.kevSchema, "utf8")) as object);
})();

/** The catalog in `bytes`, or an error saying why it is not one. */
export async function readKevCatalog(bytes: Buffer): Promise<KevCatalog> {
  let doc: unknown;
  try {
    doc = JSON.parse(bytes.toString("utf8"));
  } catch {
    throw new Error("the KEV feed is not JSON (truncated or corrupt)");
  }
  const validate = await validateCatalog;
  if (!validate(doc)) {
    const first = validate.errors?.[0];
    throw new Error(
      `the KEV feed does not follow CISA's schema (${first?.instancePath || "/"} ${first?.message ?? ""})`,
    );
  }
  const catalog = kevCatalogOf(doc as Parameters<typeof kevCatalogOf>[0]);
  if (catalog.entries.length === 0) throw new Error("the KEV feed lists no vulnerabilities");
  return catalog;
}

async function store(orm: MikroORM, catalog: KevCatalog, origin: string): Promise<FeedOutcome> {
  return orm.em.fork().transactional(async (em) => {
    const changes = kevChanges(await storedKevIds(em), catalog.entries);
    await replaceKevCatalog(em, catalog.entries);
    // The findings learn the new flags and due dates (refresh-propagation.ts).
    await queueEnrichmentUpdate(em, "kev");
    return {
      counts: { feed_count: catalog.entries.length, ...changes },
      snapshotDate: catalog.releasedOn,
      snapshotOrigin: origin,
    };
  });
}

export const kevFeed: EnrichmentFeed = {
  name: "kev",
  loadSnapshot: (orm, settings) =>
    loadSnapshotOnce(
      orm,
      "kev",
      settings.leaseMs,
      async () => (await kevEntryCount(orm.em.fork())) === 0,
      async () => {
        const outcome = await store(orm, await readKevCatalog(await readFile(VENDORED.kevCatalog)), "vendored");
        // A first load lists nothing new: the catalog simply arrived with the install.
        return { ...outcome, counts: { ...outcome.counts, listed: 0, delisted: 0 } };
      },
    ),
  skippedReason: (settings) => (settings.kev.enabled ? undefined : "KEV_REFRESH_ENABLED is false"),
  feedHost: (settings) => feedHostOf(settings.kev.url),
  async refresh(orm, { kev }, signal) {
    const bytes = await downloadBytes(kev.url, KEV_MAX_BYTES, { timeoutMs: kev.timeoutMs, signal });
    return store(orm, await readKevCatalog(bytes), "live");
  },
};
