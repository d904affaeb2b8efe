// Reads and writes of eol_products: the end-of-life dataset.
import type { EntityManager } from "@mikro-orm/postgresql";
import { SNAPSHOT } from "@sca/db";
import type { EolProduct } from "../domain/feeds/eol.ts";
import { EolProductRecord } from "./entities/enrichment-feeds.ts";

function rowOf(p: EolProduct) {
  return { product: p.product, releases: p.releases, identifiers: p.identifiers ?? [] };
}

/** Replaces the whole dataset, inside the caller's transaction. */
export async function replaceEolProducts(em: EntityManager, products: readonly EolProduct[]): Promise<void> {
  await em.nativeDelete(EolProductRecord, {});
  if (products.length > 0) await em.insertMany(EolProductRecord, products.map(rowOf));
}

/** Replaces one product's cycles (a live fetch), keeping its identifiers when the answer carries none. */
export async function replaceEolProduct(em: EntityManager, product: EolProduct): Promise<void> {
  const set: { releases: EolProduct["releases"]; identifiers?: { purl?: string }[] } = { releases: product.releases };
  if (product.identifiers) set.identifiers = product.identifiers;
  await em.nativeUpdate(EolProductRecord, { product: product.product }, set);
}

export async function eolProducts(em: EntityManager): Promise<EolProduct[]> {
  const rows = await em.find(EolProductRecord, {}, { ...SNAPSHOT, orderBy: { product: "asc" } });
  return rows.map((r) => ({ product: r.product, releases: r.releases, identifiers: r.identifiers }));
}
