import { describe, expect, it } from "@jest/globals";
import { uuidv7 } from "../src/index.ts";

describe("uuidv7", () => {
  it("carries version 7, the RFC variant and the current millisecond", () => {
    const before = Date.now();
    const id = uuidv7();
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const ms = Number.parseInt(id.replace(/-/g, "").slice(0, 12), 16);
    expect(ms).toBeGreaterThanOrEqual(before);
    expect(ms).toBeLessThanOrEqual(Date.now() + 1);
  });

  it("sorts in the order the ids were made, even many in one millisecond", () => {
    const ids = Array.from({ length: 20_000 }, () => uuidv7());
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
