// List pages kept in memory (docs/inventory.md, "Component pages kept"): an answer of a project's newest snapshot as
// it is sent (the JSON rows PostgreSQL wrote for it, in a message encoded once: @sca/rpc's encodedMessage), under its
// query and the number of writes the snapshot's components have had (inventory_changes, raised in every writing
// transaction by a trigger); kept-reads.ts says how they are kept.
import type { ListComponentsResponse } from "@sca/proto/sca/projects/v1/inventory_pb.ts";
import { KeptReads } from "./kept-reads.ts";

export type ComponentPageCache = KeptReads<ListComponentsResponse>;

/**
 * `maxBytes` 0 keeps nothing: every page is read. A page weighs its rows: the rest of its encoding is a few bytes, and
 * the rows in the message are a view into it.
 */
export const componentPageCache = (maxBytes: number): ComponentPageCache =>
  new KeptReads<ListComponentsResponse>(maxBytes, (page) => page.itemsJson.byteLength);
