// The end-of-life dataset: the vendored endoflife.date snapshot, or the operator's (EOL_SNAPSHOT_PATH), loaded
// whole; and, when EOL_REFRESH_ENABLED, a live sweep fetching each product from EOL_FEED_URL_TEMPLATE, each fetch
// bounded by EOL_REFRESH_TIMEOUT_SECONDS and the whole sweep by 60 s (products not reached keep their cycles).
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { MikroORM } from "@mikro-orm/postgresql";
import { downloadBytes } from "../clients/feed-download.ts";
import { isProductName, readEolProduct, ruleCountOf, type EolProduct } from "../domain/feeds/eol.ts";
import { dayOf, feedHostOf } from "../domain/feeds/feed-status.ts";
import { eolProducts, replaceEolProduct, replaceEolProducts } from "../store/eol-products.ts";
import { queueEnrichmentUpdate } from "../store/pending-refreshes.ts";
import { loadSnapshotOnce, type EnrichmentFeed, type FeedOutcome } from "./feed-attempt.ts";
import { VENDORED, VENDORED_DATES, type FeedSettings } from "./feed-settings.ts";

/** One product's answer; the largest real product file is about 30 kB. */
const PRODUCT_MAX_BYTES = 4 * 1024 * 1024;

/** Every `<product>.json` of a directory; a file that is not a product is an error (the snapshot is refused whole). */
export async function readEolSnapshot(dir: string): Promise<EolProduct[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith(".json")).sort();
  const products: EolProduct[] = [];
  for (const file of files) {
    const name = file.slice(0, -".json".length);
    let json: unknown;
    try {
      json = JSON.parse(await readFile(join(dir, file), "utf8"));
    } catch {
      throw new Error(`${file} of the end-of-life snapshot is not JSON`);
    }
    const product = isProductName(name) ? readEolProduct(name, json) : null;
    if (!product) throw new Error(`${file} of the end-of-life snapshot is not an endoflife.date product`);
    products.push(product);
  }
  if (products.length === 0) throw new Error("the end-of-life snapshot holds no product");
  return products;
}

function originOf(settings: FeedSettings): "vendored" | "override" {
  return settings.eol.snapshotPath ? "override" : "vendored";
}

function countsOf(products: readonly EolProduct[]) {
  return { product_count: products.length, rule_count: ruleCountOf(products) };
}

/** The live sweep: each product of the dataset fetched in turn until the sweep's cap; answers how many were replaced. */
async function sweep(orm: MikroORM, settings: FeedSettings, signal: AbortSignal): Promise<FeedOutcome> {
  const { eol } = settings;
  const em = orm.em.fork();
  const products = await eolProducts(em);
  // Each product is replaced on its own, so the re-stamp is queued before the first (a sweep cut short still reaches
  // the inventories) and again after the last (what the sweep changed after a re-stamp already ran).
  await queueEnrichmentUpdate(em, "eol");
  const deadline = Date.now() + eol.sweepCapMs;
  let refreshed = 0;
  let failed = 0;
  for (const { product } of products) {
    const left = deadline - Date.now();
    if (left <= 0 || signal.aborted) break;
    const url = eol.urlTemplate.replaceAll("{product}", encodeURIComponent(product));
    try {
      const bytes = await downloadBytes(url, PRODUCT_MAX_BYTES, {
        timeoutMs: Math.min(eol.perProductTimeoutMs, left),
        signal,
      });
      const fetched = readEolProduct(product, JSON.parse(bytes.toString("utf8")));
      if (!fetched || fetched.releases.length === 0) throw new Error("not an endoflife.date product");
      await replaceEolProduct(em, fetched);
      refreshed++;
    } catch {
      failed++; // this product keeps its cycles
    }
  }
  const skipped = products.length - refreshed - failed;
  if (refreshed === 0)
    throw new Error(
      `no end-of-life product could be fetched (${failed} failed, ${skipped} not reached within the sweep's ${eol.sweepCapMs / 1000} s)`,
    );
  await queueEnrichmentUpdate(em, "eol");
  const now = await eolProducts(em);
  return {
    counts: { ...countsOf(now), refreshed_products: refreshed, failed_products: failed, unreached_products: skipped },
    snapshotDate: dayOf(new Date()),
    snapshotOrigin: "live",
  };
}

export const eolFeed: EnrichmentFeed = {
  name: "eol",
  loadSnapshot: loadEolSnapshot,
  skippedReason: ({ eol }) =>
    !eol.enabled
      ? "EOL_ENABLED is false"
      : !eol.refreshEnabled
        ? "EOL_REFRESH_ENABLED is off (the snapshot is used)"
        : undefined,
  feedHost: ({ eol }) => (eol.refreshEnabled ? feedHostOf(eol.urlTemplate.replaceAll("{product}", "x")) : ""),
  refresh: sweep,
  // A verdict depends on the day as well as the data (a cycle whose date passes becomes eol): the daily check
  // re-stamps the inventories even when the live sweep is off (a sweep queued its own re-stamp).
  async afterSkip(orm, { eol }) {
    if (eol.enabled) await queueEnrichmentUpdate(orm.em.fork(), "eol");
  },
};

/** Loads the snapshot when the table is empty or its origin (vendored, override) is not the configured one. */
async function loadEolSnapshot(orm: MikroORM, settings: FeedSettings): Promise<boolean> {
  const origin = originOf(settings);
  return loadSnapshotOnce(
    orm,
    "eol",
    settings.leaseMs,
    (stored) => Promise.resolve(stored !== origin && !(stored === "live" && origin === "vendored")),
    async (): Promise<FeedOutcome> => {
      const products = await readEolSnapshot(settings.eol.snapshotPath || VENDORED.eolDir);
      await orm.em.fork().transactional(async (em) => {
        await replaceEolProducts(em, products);
        // The inventories are re-stamped with it (vulndb/refresh-propagation.ts).
        await queueEnrichmentUpdate(em, "eol");
      });
      return {
        counts: countsOf(products),
        snapshotDate: origin === "vendored" ? VENDORED_DATES.eol : dayOf(new Date()),
        snapshotOrigin: origin,
      };
    },
  );
}
