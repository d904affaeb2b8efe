// List pages kept in memory (docs/inventory.md, "Component pages kept"): a page of a project's newest snapshot, as
// the JSON rows PostgreSQL wrote for it, under its query and the number of writes the snapshot's components have had
// (inventory_changes, raised in every writing transaction by a trigger). A page is answered again only while that
// number is the same, so a write committed before a request was looked up is never hidden from it; several instances
// each keep their own pages and agree through the number. Bounded by bytes, least recently used out first.
import { LRUCache } from "lru-cache";

export interface ComponentPage {
  /** The page's rows as one JSON array. */
  itemsJson: Uint8Array;
  total: number;
}

/** The snapshot a page is read from, and the version of its components that the page is valid for. */
export interface PageSource {
  scanId: string;
  changes: number;
}

/** What a kept page costs besides its bytes (key, entry). */
const ENTRY_OVERHEAD_BYTES = 512;

export class ComponentPageCache {
  private readonly pages: LRUCache<string, ComponentPage> | null;

  /** `maxBytes` 0 keeps nothing: every page is read. */
  constructor(maxBytes: number) {
    this.pages =
      maxBytes > 0
        ? new LRUCache<string, ComponentPage>({
            maxSize: maxBytes,
            sizeCalculation: (page, key) => page.itemsJson.byteLength + key.length + ENTRY_OVERHEAD_BYTES,
          })
        : null;
  }

  /** The kept page of `source` for `query` (any JSON-able value naming the filter, sort and window), else `read()`'s. */
  async page(source: PageSource, query: unknown, read: () => Promise<ComponentPage>): Promise<ComponentPage> {
    if (!this.pages) return read();
    const key = `${source.scanId}/${source.changes}/${JSON.stringify(query)}`;
    const kept = this.pages.get(key);
    if (kept) return kept;
    const page = await read();
    // A page too large for the whole budget is answered, not kept.
    if (page.itemsJson.byteLength + key.length + ENTRY_OVERHEAD_BYTES <= this.pages.maxSize) this.pages.set(key, page);
    return page;
  }

  /** Pages kept and their bytes (the metrics and the tests). */
  get size(): { pages: number; bytes: number } {
    return { pages: this.pages?.size ?? 0, bytes: this.pages?.calculatedSize ?? 0 };
  }
}
