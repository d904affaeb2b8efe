import { describe, expect, it } from "@jest/globals";
import { waiverExpiry, waiverState, waiverViolations } from "../src/domain/malicious-waiver.ts";

describe("malicious waiver rules", () => {
  const ok = { purl: "pkg:npm/left-pad@1.3.0", reason: "reviewed", days: 30 };

  it("accepts 1 to the deployment's maximum days, a package URL and a reason", () => {
    expect(waiverViolations(ok, 30)).toEqual([]);
    expect(waiverViolations({ ...ok, days: 1 }, 30)).toEqual([]);
    expect(waiverViolations({ ...ok, days: 31 }, 30).map((v) => v.path)).toEqual(["days"]);
    expect(waiverViolations({ ...ok, days: 31 }, 60)).toEqual([]);
    expect(waiverViolations({ purl: "left-pad", reason: "  ", days: 0 }, 30).map((v) => v.path)).toEqual([
      "purl",
      "reason",
      "days",
    ]);
  });

  it("expires days after the grant; revoked wins over expiry", () => {
    const now = new Date("2026-11-28T12:00:00.000Z");
    const expiresAt = waiverExpiry(now, 30);
    expect(expiresAt.toISOString()).toBe("2026-12-28T12:00:00.000Z");
    expect(waiverState({ expiresAt, revokedAt: null }, now)).toBe("active");
    expect(waiverState({ expiresAt, revokedAt: null }, expiresAt)).toBe("expired");
    expect(waiverState({ expiresAt, revokedAt: now }, now)).toBe("revoked");
  });
});
