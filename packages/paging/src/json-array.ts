// A page's items, each already JSON text, as one JSON array in UTF-8 bytes (the lists' items_json).

const OPEN = 0x5b; // [
const COMMA = 0x2c;
const CLOSE = 0x5d; // ]

/**
 * `[item,item,...]` written straight into one buffer. Joining the items first would make a string of the whole page
 * (a page of 100 findings is about 165 KB): V8 keeps such a string in its large-object space until a full
 * collection, so under load each page added to the old generation and the lists ran a full collection every few
 * hundred milliseconds. The items' own strings are small and die young.
 */
export function jsonArrayBytes(items: readonly string[]): Buffer {
  const lengths = items.map((item) => Buffer.byteLength(item, "utf8"));
  const size = lengths.reduce((sum, n) => sum + n, 2 + Math.max(0, items.length - 1));
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  out[at++] = OPEN;
  items.forEach((item, i) => {
    if (i > 0) out[at++] = COMMA;
    at += out.write(item, at, lengths[i]!, "utf8");
  });
  out[at++] = CLOSE;
  return out;
}
