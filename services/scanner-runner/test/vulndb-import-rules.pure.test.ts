// When the vulnerability database imports (domain/vulndb/import-due.ts).
import { describe, expect, it } from "@jest/globals";
import { importDue, RETRY_AFTER_FAILURE_MS, type ImportStatusFacts } from "../src/domain/vulndb/import-due.ts";

const now = new Date("2026-11-28T12:00:00Z");
const ago = (ms: number) => new Date(now.getTime() - ms);
const HOUR = 3600_000;
const synced = (facts: Partial<ImportStatusFacts> = {}): ImportStatusFacts => ({
  source: "https://mirror.example/all.zip",
  lastResult: "unchanged",
  lastAttemptAt: ago(HOUR),
  lastSucceededAt: ago(HOUR),
  ...facts,
});

describe("an import is due", () => {
  it("on a fresh install, unless the first attempt failed moments ago", () => {
    expect(importDue(null, "/data/osv", 168, now)).toBe(true);
    const failed = synced({ lastResult: "failed", lastSucceededAt: null, lastAttemptAt: ago(60_000) });
    expect(importDue(failed, failed.source, 168, now)).toBe(false);
    expect(importDue({ ...failed, lastAttemptAt: ago(RETRY_AFTER_FAILURE_MS) }, failed.source, 168, now)).toBe(true);
  });

  it("VULNDB_REFRESH_HOURS after the last success of the same source", () => {
    const status = synced({ lastSucceededAt: ago(167 * HOUR) });
    expect(importDue(status, status.source, 168, now)).toBe(false);
    expect(importDue({ ...status, lastSucceededAt: ago(168 * HOUR) }, status.source, 168, now)).toBe(true);
  });

  it("at once when VULNDB_REPOSITORY names another source, and again after that source failed", () => {
    const status = synced();
    expect(importDue(status, "https://other.example/all.zip", 168, now)).toBe(true);
    // The new source's attempt failed: the row names it now, the data is still the old source's.
    const failed = synced({
      source: "https://other.example/all.zip",
      lastResult: "failed",
      lastAttemptAt: ago(60_000),
    });
    expect(importDue(failed, failed.source, 168, now)).toBe(false);
    expect(importDue({ ...failed, lastAttemptAt: ago(RETRY_AFTER_FAILURE_MS + 1) }, failed.source, 168, now)).toBe(
      true,
    );
  });
});
