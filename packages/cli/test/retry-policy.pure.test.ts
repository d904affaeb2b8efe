import { describe, expect, it } from "@jest/globals";
import { MAX_RETRY_AFTER_MS, isRetryable, retryDelayMs } from "../src/retry-policy.ts";

describe("retries", () => {
  it("asks again on 429 and 503 only", () => {
    expect([429, 503].every(isRetryable)).toBe(true);
    expect([400, 401, 403, 404, 409, 413, 500, 502, 504].some(isRetryable)).toBe(false);
  });

  it("waits what Retry-After says, in seconds or as an HTTP date", () => {
    const now = Date.parse("2026-11-28T12:00:00Z");
    expect(retryDelayMs(1, "3", now)).toBe(3000);
    expect(retryDelayMs(4, "0", now)).toBe(0);
    expect(retryDelayMs(1, "Sat, 28 Nov 2026 12:00:07 GMT", now)).toBe(7000);
    expect(retryDelayMs(1, "Sat, 28 Nov 2026 11:59:00 GMT", now)).toBe(0);
  });

  it("doubles from half a second without Retry-After, up to 8 s", () => {
    expect([1, 2, 3, 4, 5, 6].map((a) => retryDelayMs(a, null, 0))).toEqual([500, 1000, 2000, 4000, 8000, 8000]);
    expect(retryDelayMs(2, "soon", 0)).toBe(1000);
  });

  it("does not wait past five minutes", () => {
    expect(retryDelayMs(1, String(MAX_RETRY_AFTER_MS / 1000 + 1), 0)).toBeNull();
    expect(retryDelayMs(1, String(MAX_RETRY_AFTER_MS / 1000), 0)).toBe(MAX_RETRY_AFTER_MS);
  });
});
