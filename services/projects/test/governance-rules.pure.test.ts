import { describe, expect, it } from "@jest/globals";
import { isoDay, kevSlaState, trendDirection } from "../src/domain/governance.ts";

describe("the governance band's figures", () => {
  it("the KEV state is the worst that applies", () => {
    expect(kevSlaState({ open: 0, overdue: 0, dueSoon: 0 })).toBe("none");
    expect(kevSlaState({ open: 2, overdue: 0, dueSoon: 0 })).toBe("on_track");
    expect(kevSlaState({ open: 2, overdue: 0, dueSoon: 1 })).toBe("due_soon");
    expect(kevSlaState({ open: 2, overdue: 1, dueSoon: 1 })).toBe("overdue");
  });

  it("the trend compares the newest snapshot with the one before: risk first, then open findings", () => {
    expect(trendDirection([])).toBe("unknown");
    expect(trendDirection([{ riskScore: 10, openFindings: 1 }])).toBe("unknown");
    const older = { riskScore: 30, openFindings: 5 };
    expect(trendDirection([older, { riskScore: 40, openFindings: 1 }])).toBe("worsening");
    expect(trendDirection([older, { riskScore: 20, openFindings: 9 }])).toBe("improving");
    expect(trendDirection([older, { riskScore: 30, openFindings: 6 }])).toBe("worsening");
    expect(trendDirection([older, { riskScore: 30, openFindings: 4 }])).toBe("improving");
    expect(trendDirection([{ riskScore: 90, openFindings: 0 }, older, { ...older }])).toBe("steady");
  });

  it("days are UTC calendar days", () => {
    expect(isoDay(new Date("2026-11-24T23:30:00Z"))).toBe("2026-11-24");
    expect(isoDay(new Date("2026-11-24T23:30:00Z"), 7)).toBe("2026-12-01");
  });
});
