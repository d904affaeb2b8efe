// A JSON object kept within a jsonb row's byte ceiling (JSONB_ROW_SIZE_LIMIT_BYTES), the one rule for every writer of
// such rows: whole when it fits, else its top-level fields that fit, in order, marked `$truncated` with the original
// size. A subpath of its own (`@sca/db/jsonb-object`) so pure code uses it without loading the database driver.

export interface BoundedJson {
  /** The object's JSON text within the ceiling: the text given when it fits. */
  text: string;
  truncated: boolean;
}

/** Whether `json` is at most `limit` bytes in UTF-8, mostly decided without encoding it. */
function byteLengthAtMost(json: string, limit: number): boolean {
  // A UTF-16 unit never takes more than 3 bytes in UTF-8.
  return json.length * 3 <= limit || Buffer.byteLength(json, "utf8") <= limit;
}

/** `text` must be a JSON object's text. */
export function boundJsonObject(text: string, limit: number): BoundedJson {
  if (byteLengthAtMost(text, limit)) return { text, truncated: false };
  const whole = JSON.parse(text) as Record<string, unknown>;
  const kept: Record<string, unknown> = { $truncated: true, $originalBytes: Buffer.byteLength(text, "utf8") };
  let used = Buffer.byteLength(JSON.stringify(kept), "utf8");
  for (const [key, value] of Object.entries(whole)) {
    // `"key":value` and the comma before it.
    const size = Buffer.byteLength(JSON.stringify({ [key]: value }), "utf8") - 2 + 1;
    if (used + size > limit) continue;
    kept[key] = value;
    used += size;
  }
  return { text: JSON.stringify(kept), truncated: true };
}
