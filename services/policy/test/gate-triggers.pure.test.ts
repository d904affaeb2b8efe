import { describe, expect, it } from "@jest/globals";
import { gateTriggerOf } from "../src/domain/gate-triggers.ts";

const ids = { projectId: "p", scanId: "s" };

describe("gateTriggerOf", () => {
  it("judges a scan once, when it moves into succeeded and is not superseded on landing", () => {
    const moved = (status: string, previousStatus: string, landedSuperseded = false) =>
      gateTriggerOf({ ...ids, event: "scan_state_changed", status, previousStatus, landedSuperseded });
    expect(moved("succeeded", "running")).toEqual({ ...ids, cause: "scan" });
    expect(moved("succeeded", "succeeded")).toBeNull();
    expect(moved("succeeded", "running", true)).toBeNull();
    expect(moved("failed", "running")).toBeNull();
    expect(moved("superseded", "succeeded")).toBeNull();
  });

  it("judges again when a re-match added findings, not when it only removed some", () => {
    expect(gateTriggerOf({ ...ids, event: "findings_changed", addedCount: 2 })).toEqual({
      ...ids,
      cause: "advisory_update",
    });
    expect(gateTriggerOf({ ...ids, event: "findings_changed", addedCount: 0 })).toBeNull();
  });

  it("judges again when a snapshot refresh flagged components, not for a scan's own stamping", () => {
    const flagged = (cause: string, flaggedCount: number) =>
      gateTriggerOf({ ...ids, event: "malicious_components_flagged", cause, flaggedCount });
    expect(flagged("snapshot_refresh", 1)).toEqual({ ...ids, cause: "malicious_snapshot" });
    expect(flagged("snapshot_refresh", 0)).toBeNull();
    expect(flagged("scan", 4)).toBeNull();
  });

  it("judges again whenever registry licenses were categorised", () => {
    const categorised = gateTriggerOf({ ...ids, event: "inventory_licenses_categorised" });
    expect(categorised).toEqual({ ...ids, cause: "license_update" });
    expect(categorised?.cause).not.toBe("scan");
  });
});
