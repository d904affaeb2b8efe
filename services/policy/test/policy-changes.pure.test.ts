// The fields an upsert's audit event names: those whose value differs, by API name, each once.
import { describe, expect, it } from "@jest/globals";
import { changedFieldNames } from "../src/domain/policy-changes.ts";

const names = { name: "name", threshold: "epss_threshold", thresholdSet: "epss_threshold", overrides: "overrides" };

describe("changedFieldNames", () => {
  it("names nothing when every value is the same, objects compared by content whatever their key order", () => {
    const current = { name: "a", threshold: 0.5, thresholdSet: true, overrides: { MIT: "allowed", GPL: "denied" } };
    const next = { name: "a", threshold: 0.5, thresholdSet: true, overrides: { GPL: "denied", MIT: "allowed" } };
    expect(changedFieldNames(current, next, names)).toEqual([]);
  });

  it("names each changed field once by its API name, two columns of one field included", () => {
    const current = { name: "a", threshold: 0.5, thresholdSet: true, overrides: {} };
    const next = { name: "b", threshold: null, thresholdSet: false, overrides: { MIT: "allowed" } };
    expect(changedFieldNames<Record<keyof typeof names, unknown>>(current, next, names)).toEqual([
      "name",
      "epss_threshold",
      "overrides",
    ]);
  });
});
