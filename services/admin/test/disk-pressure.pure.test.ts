// The disk panel's judgement of a volume: the scan-orchestrator's limits (DISK_PRESSURE_*), either one reached.
import { describe, expect, it } from "@jest/globals";
import { underPressure } from "../src/domain/disk-pressure.ts";

const limits = { hardLimitPercent: 90, minFreeBytes: 100 };

describe("disk pressure", () => {
  it("is reached at the used percentage or below the free bytes, not before", () => {
    // 89.9 % used, 101 bytes free: neither limit.
    expect(underPressure({ totalBytes: 1000, freeBytes: 101 }, limits)).toBe(false);
    expect(underPressure({ totalBytes: 10_000, freeBytes: 1001 }, limits)).toBe(false);
    expect(underPressure({ totalBytes: 10_000, freeBytes: 1000 }, limits)).toBe(true);
    expect(underPressure({ totalBytes: 1_000_000, freeBytes: 99 }, { hardLimitPercent: 100, minFreeBytes: 100 })).toBe(
      true,
    );
    expect(underPressure({ totalBytes: 0, freeBytes: 0 }, { hardLimitPercent: 100, minFreeBytes: 0 })).toBe(true);
  });
});
