import { describe, expect, it } from "@jest/globals";
import { growthPercent } from "../src/heap-growth.ts";

const MiB = 2 ** 20;
const growth = { percent: 50, minimumHeadroomMb: 64 };

describe("heap growth", () => {
  it("keeps the given percentage for a heap large enough to leave the headroom with it", () => {
    expect(growthPercent(growth, 128 * MiB)).toBe(50);
    expect(growthPercent(growth, 400 * MiB)).toBe(50);
  });

  it("raises it for a small heap so the room past what is live is at least the headroom, in steps of 10", () => {
    // 42 MiB live (projects serving lists): 64 / 42 = 152 %, so 160.
    expect(growthPercent(growth, 42 * MiB)).toBe(160);
    expect((42 * MiB * growthPercent(growth, 42 * MiB)) / 100).toBeGreaterThanOrEqual(64 * MiB);
    expect(growthPercent(growth, 100 * MiB)).toBe(70);
  });

  it("never asks V8 for more than its own sizing's four times", () => {
    expect(growthPercent(growth, 5 * MiB)).toBe(300);
    expect(growthPercent(growth, 0)).toBe(300);
  });
});
