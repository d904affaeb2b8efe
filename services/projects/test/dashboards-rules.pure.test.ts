// The dashboards' pure rules (domain/dashboards.ts, domain/portfolio-search.ts): reach, the default gate rules,
// trend buckets and the search request.
import { describe, expect, it } from "@jest/globals";
import type { FieldViolation } from "@sca/problem";
import { ANONYMOUS, type Caller } from "@sca/rpc";
import {
  bucketStart,
  bucketStarts,
  dashboardReach,
  gateBlocks,
  measuredDays,
  trendRequestOf,
} from "../src/domain/dashboards.ts";
import { searchOf } from "../src/domain/portfolio-search.ts";

const TEAM = "00000000-0000-4000-8000-000000000001";
const ORG = "00000000-0000-4000-8000-0000000000aa";
const member: Caller = {
  ...ANONYMOUS,
  kind: "user",
  user_id: "u",
  memberships: [{ team_id: TEAM, organization_id: ORG, role: "viewer" }],
};

describe("dashboardReach", () => {
  it("gives super_admin everything, an org key its organization, others their teams, a project key nothing", () => {
    expect(dashboardReach({ ...member, is_superuser: true })).toEqual({ kind: "all" });
    expect(dashboardReach(member)).toEqual({ kind: "teams", ids: [TEAM] });
    const grant = { team_id: null, project_id: null, permission_breadth: "read_only" as const };
    expect(
      dashboardReach({ ...member, kind: "api_key", api_key: { ...grant, scope: "org", organization_id: ORG } }),
    ).toEqual({ kind: "organizations", ids: [ORG] });
    expect(() =>
      dashboardReach({
        ...member,
        kind: "api_key",
        api_key: { ...grant, scope: "project", organization_id: ORG, project_id: "p" },
      }),
    ).toThrow(/project-scoped/);
  });
});

describe("gateBlocks", () => {
  it("blocks on a critical finding, a forbidden license or a malicious package", () => {
    expect(gateBlocks({ critical: 0, licenseForbidden: 0, malicious: 0 })).toBe(false);
    expect(gateBlocks({ critical: 1, licenseForbidden: 0, malicious: 0 })).toBe(true);
    expect(gateBlocks({ critical: 0, licenseForbidden: 2, malicious: 0 })).toBe(true);
    expect(gateBlocks({ critical: 0, licenseForbidden: 0, malicious: 1 })).toBe(true);
  });
});

describe("trend buckets", () => {
  it("start weeks on Monday and months on the 1st", () => {
    expect(bucketStart("2026-11-28", "week")).toBe("2026-11-23");
    expect(bucketStart("2026-11-23", "week")).toBe("2026-11-23");
    expect(bucketStart("2026-11-28", "month")).toBe("2026-11-01");
    expect(bucketStart("2026-11-28", "day")).toBe("2026-11-28");
    expect(bucketStarts("2026-11-28", "month", 3)).toEqual(["2026-09-01", "2026-10-01", "2026-11-01"]);
    expect(bucketStarts("2026-01-02", "week", 2)).toEqual(["2025-12-22", "2025-12-29"]);
  });

  it("show each bucket's last recorded day, none for an empty bucket", () => {
    const starts = bucketStarts("2026-11-28", "week", 3);
    expect(measuredDays(starts, ["2026-11-24", "2026-11-27", "2026-11-10"], "week")).toEqual([
      "2026-11-10",
      null,
      "2026-11-27",
    ]);
  });

  it("default the points per interval and refuse an unknown interval", () => {
    const v: FieldViolation[] = [];
    expect(trendRequestOf("", 0, v)).toEqual({ interval: "day", points: 30 });
    expect(trendRequestOf("month", 0, v)).toEqual({ interval: "month", points: 12 });
    expect(v).toEqual([]);
    trendRequestOf("year", 400, v);
    expect(v.map((x) => x.path)).toEqual(["interval", "points"]);
  });
});

describe("searchOf", () => {
  it("takes exactly one thing to look for and the search page bounds", () => {
    const v: FieldViolation[] = [];
    expect(
      searchOf({ packageName: " log4j-core ", version: "2.14.1", ecosystem: "Maven", page: 0, size: 0 }, v),
    ).toEqual({
      query: { kind: "package", name: "log4j-core", version: "2.14.1", purlType: "maven" },
      page: 1,
      size: 25,
    });
    expect(searchOf({ vulnerability: "GHSA-jfh8-c2jp-5v3q", page: 2, size: 100 }, v).query).toEqual({
      kind: "vulnerability",
      id: "GHSA-jfh8-c2jp-5v3q",
    });
    expect(v).toEqual([]);
    searchOf({ license: "MIT", packageName: "x", page: 1, size: 101 }, v);
    expect(v.map((x) => x.path)).toEqual(["query", "size"]);
    const w: FieldViolation[] = [];
    searchOf({ license: "MIT", version: "1.0.0", page: 1, size: 1 }, w);
    expect(w.map((x) => x.path)).toEqual(["version"]);
  });
});
