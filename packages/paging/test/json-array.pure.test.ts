// A page's items as one JSON array's bytes, held to what JSON.stringify writes for the same items.
import { describe, expect, it } from "@jest/globals";
import { jsonArrayBytes } from "../src/index.ts";

const itemsOf = (values: unknown[]) => values.map((v) => JSON.stringify(v));

describe("jsonArrayBytes", () => {
  it("writes the items between brackets, comma-separated, as UTF-8", () => {
    const values = [{ name: "lodash", version: "4.17.20" }, { summary: "Überlauf in 日本語 😀" }, null, 3, "x"];
    const bytes = jsonArrayBytes(itemsOf(values));
    expect(bytes.toString("utf8")).toBe(JSON.stringify(values));
    expect(JSON.parse(bytes.toString("utf8"))).toEqual(values);
  });

  it("writes an empty page as [] and one item without a comma", () => {
    expect(jsonArrayBytes([]).toString("utf8")).toBe("[]");
    expect(jsonArrayBytes(['{"a":1}']).toString("utf8")).toBe('[{"a":1}]');
  });

  it("fills the buffer exactly, whatever the characters' widths", () => {
    const items = itemsOf(Array.from({ length: 200 }, (_, i) => ({ i, text: "é".repeat(i) + "€".repeat(i % 7) })));
    const bytes = jsonArrayBytes(items);
    expect(bytes.byteLength).toBe(Buffer.byteLength(`[${items.join(",")}]`, "utf8"));
    expect(bytes.equals(Buffer.from(`[${items.join(",")}]`, "utf8"))).toBe(true);
  });
});
