// The gate read's rules in projects: which triage states close a finding, the item limit and the threshold's range.
import { describe, expect, it } from "@jest/globals";
import type { FieldViolation } from "@sca/problem";
import { CLOSING_STATES, epssThresholdViolations, gateItemLimitOf } from "../src/domain/gate-facts.ts";
import { VEX_STATES } from "@sca/vocabulary";

describe("gate facts rules", () => {
  it("closing states are VEX states, and the open ones are in_triage and exploitable", () => {
    for (const s of CLOSING_STATES) expect(VEX_STATES).toContain(s);
    expect(VEX_STATES.filter((s) => !CLOSING_STATES.includes(s))).toEqual(["in_triage", "exploitable"]);
  });

  it("item limit: 0 means the default, 1..100 pass, others are violations", () => {
    const v: FieldViolation[] = [];
    expect(gateItemLimitOf(0, v)).toBe(20);
    expect(gateItemLimitOf(100, v)).toBe(100);
    expect(v).toEqual([]);
    gateItemLimitOf(101, v);
    gateItemLimitOf(-1, v);
    expect(v.map((x) => x.path)).toEqual(["item_limit", "item_limit"]);
  });

  it("the EPSS threshold is within 0..1 when given", () => {
    const v: FieldViolation[] = [];
    epssThresholdViolations(undefined, v);
    epssThresholdViolations(0, v);
    epssThresholdViolations(1, v);
    expect(v).toEqual([]);
    epssThresholdViolations(1.01, v);
    epssThresholdViolations(Number.NaN, v);
    expect(v).toHaveLength(2);
  });
});
