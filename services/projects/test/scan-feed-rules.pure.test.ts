// The ordering rule of the scan-fed fields (domain/scan-feed.ts): which news changes what projects holds of a scan.
import { describe, expect, it } from "@jest/globals";
import { stateNewsApplies, type KnownScanState } from "../src/domain/scan-feed.ts";

const t = (s: number) => new Date(Date.UTC(2026, 10, 24, 9, 0, s));
const known = (status: KnownScanState["status"], at: number, deleted = false): KnownScanState => ({
  status,
  changedAt: t(at),
  deleted,
});

describe("stateNewsApplies", () => {
  it("takes any news of a scan not heard of yet (its creation may come later, or never)", () => {
    expect(stateNewsApplies(null, { status: "queued", occurredAt: t(0) })).toBe(true);
    expect(stateNewsApplies(null, { status: "succeeded", occurredAt: t(0) })).toBe(true);
  });

  it("takes news not older than the last applied while the scan is queued or running", () => {
    expect(stateNewsApplies(known("queued", 5), { status: "running", occurredAt: t(6) })).toBe(true);
    expect(stateNewsApplies(known("running", 5), { status: "queued", occurredAt: t(5) })).toBe(true);
    expect(stateNewsApplies(known("running", 5), { status: "queued", occurredAt: t(4) })).toBe(false);
  });

  it("never moves a finished scan again, whatever the news says or when it happened", () => {
    for (const status of ["succeeded", "failed", "cancelled"] as const) {
      expect(stateNewsApplies(known(status, 5), { status: "running", occurredAt: t(9) })).toBe(false);
      expect(stateNewsApplies(known(status, 5), { status: "succeeded", occurredAt: t(9) })).toBe(false);
    }
  });

  it("never brings back a deleted scan, even one only known by its tombstone", () => {
    expect(stateNewsApplies(known("succeeded", 5, true), { status: "succeeded", occurredAt: t(9) })).toBe(false);
    expect(stateNewsApplies(known(null, 5, true), { status: "queued", occurredAt: t(9) })).toBe(false);
  });
});
