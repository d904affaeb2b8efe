// Finding list orders kept in memory (docs/findings.md, "Finding orders kept"): the ids of a snapshot's open
// findings matching a filter, in a sort's order (reads.ts findingOrder), kept under the snapshot's count of the writes
// the list derives from (kept-reads.ts, ADR 7), beside the snapshot's counts of findings. The total is the order's length and a page is a slice of it, so only
// the first request of a filter and sort sorts the snapshot's findings; every page after it, at any offset, reads its
// rows by id.
import { KeptReads } from "../kept-reads.ts";

const UUID_BYTES = 16;

/** The ids of the matching findings in order, 16 bytes each. */
export type FindingOrder = Buffer;

/** The finding list orders and the counts of findings (governance band, gate facts) kept, in one budget. */
export type KeptFindingReads = KeptReads<object>;

/** `maxBytes` 0 keeps nothing: every read is made. */
export const keptFindingReads = (maxBytes: number): KeptFindingReads =>
  new KeptReads<object>(maxBytes, (value) =>
    Buffer.isBuffer(value) ? value.byteLength : 2 * JSON.stringify(value).length,
  );

export const findingCountOf = (order: FindingOrder): number => order.byteLength / UUID_BYTES;

/** The ids of the window's findings, as UUID text. */
export function idsOfWindow(order: FindingOrder, window: { limit: number; offset: number }): string[] {
  const ids: string[] = [];
  const end = Math.min(findingCountOf(order), window.offset + window.limit);
  for (let i = window.offset; i < end; i++) {
    const hex = order.toString("hex", i * UUID_BYTES, (i + 1) * UUID_BYTES);
    ids.push(`${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`);
  }
  return ids;
}
