// The rules of the build gate's read that projects owns (docs/gate.md): which triage states close a finding (it
// stops counting against the gate) and how many offending items one answer may list.
import type { FieldViolation } from "@sca/problem";
import type { VexState } from "@sca/vocabulary";

/** The VEX states that close a finding: triaged not_affected, resolved or false_positive, it no longer fails a gate. */
export const CLOSING_STATES: readonly VexState[] = [
  "false_positive",
  "not_affected",
  "resolved",
  "resolved_with_pedigree",
];

export const GATE_ITEM_LIMIT_MAX = 100;

export function gateItemLimitOf(limit: number, v: FieldViolation[]): number {
  if (limit === 0) return 20;
  if (!Number.isInteger(limit) || limit < 1 || limit > GATE_ITEM_LIMIT_MAX)
    v.push({ path: "item_limit", message: `between 1 and ${GATE_ITEM_LIMIT_MAX}` });
  return limit;
}

export function epssThresholdViolations(threshold: number | undefined, v: FieldViolation[]): void {
  if (threshold !== undefined && !(threshold >= 0 && threshold <= 1))
    v.push({ path: "epss_threshold", message: "between 0 and 1" });
}
