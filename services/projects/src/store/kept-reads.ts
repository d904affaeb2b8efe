// Reads kept in memory (ADR 7): a value derived from a snapshot's rows, kept under the snapshot, the database's count
// of the writes it derives from, and the query. It is answered again only while that count is the same, so a write
// committed before a request was looked up is never hidden from it; several instances each keep their own and agree
// through the count. Bounded by bytes, least recently used out first. Requests for a value being read wait for that
// read rather than starting their own.
import { LRUCache } from "lru-cache";

/** The snapshot a value is read from, and the version of its rows that the value is valid for. */
export interface ReadSource {
  scanId: string;
  changes: number | string;
}

/** What a kept value costs besides its bytes (key, entry). */
const ENTRY_OVERHEAD_BYTES = 512;

export class KeptReads<V extends object> {
  private readonly kept: LRUCache<string, V> | null;
  private readonly reading = new Map<string, Promise<V>>();
  private readonly bytesOf: (value: V) => number;

  /** `maxBytes` 0 keeps nothing: every value is read. `bytesOf` is a value's size in memory. */
  constructor(maxBytes: number, bytesOf: (value: V) => number) {
    this.bytesOf = bytesOf;
    this.kept =
      maxBytes > 0
        ? new LRUCache<string, V>({
            maxSize: maxBytes,
            sizeCalculation: (value, key) => bytesOf(value) + key.length + ENTRY_OVERHEAD_BYTES,
          })
        : null;
  }

  /**
   * The kept value of `source` for `query` (any JSON-able value naming what is read), else `read()`'s. A query names
   * one kind of value: what `read` answers for it is what a later call with the same query gets.
   */
  async read<T extends V>(source: ReadSource, query: unknown, read: () => Promise<T>): Promise<T> {
    const kept = this.kept;
    if (!kept) return read();
    const key = `${source.scanId}/${source.changes}/${JSON.stringify(query)}`;
    const found = (kept.get(key) ?? this.reading.get(key)) as T | Promise<T> | undefined;
    if (found) return found;
    const reading = read();
    this.reading.set(key, reading);
    try {
      const value = await reading;
      // A value too large for the whole budget is answered, not kept.
      if (this.bytesOf(value) + key.length + ENTRY_OVERHEAD_BYTES <= kept.maxSize) kept.set(key, value);
      return value;
    } finally {
      this.reading.delete(key);
    }
  }

  /** Values kept and their bytes (the metrics and the tests). */
  get size(): { entries: number; bytes: number } {
    return { entries: this.kept?.size ?? 0, bytes: this.kept?.calculatedSize ?? 0 };
  }
}
