// The gateway's readiness rule (src/health/readiness.ts): ready when identity serves, whatever the others do.
import { describe, expect, it } from "@jest/globals";
import { readinessOf } from "../src/health/readiness.ts";

describe("readinessOf", () => {
  it("is ready with nothing degraded when every service serves", () => {
    expect(readinessOf({ identity: "serving", projects: "serving" })).toEqual({ ready: true, degraded: [] });
  });

  it("stays ready, listing them degraded, when services other than identity do not serve", () => {
    expect(
      readinessOf({ identity: "serving", projects: "unreachable", policy: "not_serving", admin: "unknown" }),
    ).toEqual({ ready: true, degraded: ["projects", "policy", "admin"] });
  });

  it("is not ready whenever identity does not serve, its schema behind included", () => {
    for (const state of ["not_serving", "unknown", "unreachable"] as const)
      expect(readinessOf({ identity: state, projects: "serving" })).toEqual({ ready: false, degraded: [] });
  });
});
