// The jsonb ceiling's rule, held to byte counts of what JSON.stringify writes.
import { describe, expect, it } from "@jest/globals";
import { boundJsonObject } from "../src/jsonb-object.ts";

describe("boundJsonObject", () => {
  it("answers the text itself when it fits", () => {
    const text = '{"a":1,"b":"é"}';
    expect(boundJsonObject(text, Buffer.byteLength(text))).toEqual({ text, truncated: false });
  });

  it("keeps the fields that fit, in order, marked truncated, within the limit to the byte", () => {
    const text = JSON.stringify({ a: "x".repeat(100), b: "y".repeat(5000), c: "z", d: "é".repeat(300) });
    for (const limit of [200, 512, 1024, 1500]) {
      const bounded = boundJsonObject(text, limit);
      expect(bounded.truncated).toBe(true);
      expect(Buffer.byteLength(bounded.text)).toBeLessThanOrEqual(limit);
      const kept = JSON.parse(bounded.text) as Record<string, unknown>;
      expect(kept).toMatchObject({ $truncated: true, $originalBytes: Buffer.byteLength(text), c: "z" });
      expect(kept.b).toBeUndefined();
      expect(Object.keys(kept)).toEqual(["$truncated", "$originalBytes", ...["a", "c", "d"].filter((k) => k in kept)]);
    }
    // The accounting is exact: a limit of the kept text's own size keeps the same fields.
    const at1024 = boundJsonObject(text, 1024).text;
    expect(boundJsonObject(text, Buffer.byteLength(at1024)).text).toBe(at1024);
    expect(JSON.parse(boundJsonObject(text, 1500).text)).toHaveProperty("d");
  });
});
