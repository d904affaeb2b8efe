// List pages kept in memory (docs/inventory.md, "Component pages kept"): a page of a project's newest snapshot, as
// the JSON rows PostgreSQL wrote for it, under its query and the number of writes the snapshot's components have had
// (inventory_changes, raised in every writing transaction by a trigger); kept-reads.ts says how they are kept.
import { KeptReads } from "./kept-reads.ts";

export interface ComponentPage {
  /** The page's rows as one JSON array. */
  itemsJson: Uint8Array;
  total: number;
}

export type ComponentPageCache = KeptReads<ComponentPage>;

/** `maxBytes` 0 keeps nothing: every page is read. */
export const componentPageCache = (maxBytes: number): ComponentPageCache =>
  new KeptReads<ComponentPage>(maxBytes, (page) => page.itemsJson.byteLength);
