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
import { componentInRange, searchOf } from "../src/domain/portfolio-search.ts";

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
      query: { kind: "package", name: "log4j-core", version: { kind: "exact", text: "2.14.1" }, purlType: "maven" },
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

  it("reads a version range, and refuses range syntax it does not know", () => {
    const v: FieldViolation[] = [];
    expect(searchOf({ packageName: "log4j-core", version: ">=2.0, <2.15.0", page: 1, size: 1 }, v).query).toEqual({
      kind: "package",
      name: "log4j-core",
      purlType: null,
      version: {
        kind: "range",
        range: [
          [
            { op: ">=", version: "2.0" },
            { op: "<", version: "2.15.0" },
          ],
        ],
      },
    });
    expect(v).toEqual([]);
    for (const bad of ["^1.2.0", ">=1.0,,<2", "[1.0,2.0", ">= 1.0 <2.0", "1.0 ||"]) {
      const w: FieldViolation[] = [];
      searchOf({ packageName: "lodash", version: bad, page: 1, size: 1 }, w);
      expect([bad, w.map((x) => x.path)]).toEqual([bad, ["version"]]);
    }
  });
});

describe("componentInRange", () => {
  const range = (text: string) => {
    const q = searchOf({ packageName: "x", version: text, page: 1, size: 1 }, []).query;
    if (q?.kind !== "package" || q.version?.kind !== "range") throw new Error(`not a range: ${text}`);
    return q.version.range;
  };

  it("places each component's purl version in its own ecosystem's order", () => {
    const log4shell = range("[2.0-beta9,2.15.0)");
    expect(componentInRange(log4shell, "pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1")).toBe(true);
    // Maven: a release candidate sorts before its release; 2.15.0 itself is out.
    expect(componentInRange(log4shell, "pkg:maven/org.apache.logging.log4j/log4j-core@2.15.0-rc1")).toBe(true);
    expect(componentInRange(log4shell, "pkg:maven/org.apache.logging.log4j/log4j-core@2.15.0")).toBe(false);
    expect(componentInRange(log4shell, "pkg:maven/org.apache.logging.log4j/log4j-core@2.9.1")).toBe(true);
    expect(componentInRange(log4shell, "pkg:maven/org.apache.logging.log4j/log4j-core@1.2.17")).toBe(false);
    // PEP 440: a post-release sorts after its release, a pre-release before it.
    expect(componentInRange(range(">1.0,<2.0"), "pkg:pypi/django@1.0.post1")).toBe(true);
    expect(componentInRange(range(">=2.0"), "pkg:pypi/django@2.0rc1")).toBe(false);
    // SemVer: 1.10.0 after 1.9.0 (not as text); alternatives.
    expect(componentInRange(range("<1.2.0 || >=1.10.0"), "pkg:npm/lodash@1.10.0")).toBe(true);
    expect(componentInRange(range("<1.2.0 || >=1.10.0"), "pkg:npm/lodash@1.9.0")).toBe(false);
    expect(componentInRange(range("!=4.17.20"), "pkg:npm/lodash@4.17.21")).toBe(true);
  });

  it("places no component it cannot order", () => {
    expect(componentInRange(range(">=0"), null)).toBe(false);
    expect(componentInRange(range(">=0"), "pkg:generic/thing@1.0")).toBe(false);
    expect(componentInRange(range(">=1.0"), "pkg:npm/lodash@not.a.version")).toBe(false);
  });
});
