// The overview's figures and score formulas (domain/project-overview.ts).
import { describe, expect, it } from "@jest/globals";
import {
  hasKnownIssue,
  licenseScore,
  overviewFigures,
  riskScore,
  securityScore,
  type ComponentGroup,
} from "../src/domain/project-overview.ts";

const group = (count: number, g: Partial<ComponentGroup> = {}): ComponentGroup => ({
  severityMax: null,
  licenseCategory: null,
  eolState: null,
  currencyState: null,
  maliciousState: null,
  count,
  ...g,
});

describe("overviewFigures", () => {
  it("answers zeros, every key, and 'nothing known wrong' for a project without a snapshot", () => {
    expect(overviewFigures([])).toEqual({
      totalComponents: 0,
      severityDistribution: { critical: 0, high: 0, medium: 0, low: 0, info: 0, unknown: 0 },
      licenseDistribution: { allowed: 0, conditional: 0, forbidden: 0, uncategorized: 0 },
      componentOutcome: { with_known_issues: 0, without_known_issues: 0 },
      eolCount: 0,
      outdatedCount: 0,
      maliciousCount: 0,
      securityScore: 100,
      licenseScore: 100,
      riskScore: 0,
    });
  });

  it("counts never-assessed components as uncategorized, without severity, and nothing known wrong", () => {
    const f = overviewFigures([group(1234)]);
    expect(f).toMatchObject({
      totalComponents: 1234,
      licenseDistribution: { allowed: 0, conditional: 0, forbidden: 0, uncategorized: 1234 },
      componentOutcome: { with_known_issues: 0, without_known_issues: 1234 },
      securityScore: 100,
      licenseScore: 100,
      riskScore: 0,
    });
  });

  it("counts assessed components as the component list's filters read them", () => {
    const f = overviewFigures([
      group(2, { severityMax: "critical", licenseCategory: "allowed" }),
      group(3, { severityMax: "info", currencyState: "current" }),
      group(4, { eolState: "eol", currencyState: "major-behind" }),
      group(5, { eolState: "supported", currencyState: "unknown", maliciousState: "clear" }),
      group(1, { maliciousState: "flagged", licenseCategory: "forbidden" }),
      group(10, { licenseCategory: "conditional" }),
    ]);
    expect(f).toMatchObject({
      totalComponents: 25,
      severityDistribution: { critical: 2, high: 0, medium: 0, low: 0, info: 3, unknown: 0 },
      licenseDistribution: { allowed: 2, conditional: 10, forbidden: 1, uncategorized: 12 },
      eolCount: 4,
      outdatedCount: 4,
      maliciousCount: 1,
      // critical (2), eol (4), malicious and forbidden (1); info, outdated and conditional are no known problem.
      componentOutcome: { with_known_issues: 7, without_known_issues: 18 },
    });
  });
});

describe("the scores", () => {
  it("security: 100 less 10/5/3/1/0/5 per critical/high/medium/low/info/unknown component, 3 per eol, 100 per malicious", () => {
    expect(securityScore({}, 0, 0)).toBe(100);
    expect(securityScore({ critical: 1, high: 2, medium: 3, low: 4, info: 50, unknown: 1 }, 0, 0)).toBe(100 - 38);
    expect(securityScore({}, 5, 0)).toBe(85);
    expect(securityScore({ critical: 20 }, 0, 0)).toBe(0);
    expect(securityScore({}, 0, 1)).toBe(0);
  });

  it("license: 100 less 20 per forbidden component and up to 25 for the conditional share", () => {
    expect(licenseScore({ uncategorized: 500 }, 500)).toBe(100);
    expect(licenseScore({ forbidden: 2 }, 100)).toBe(60);
    expect(licenseScore({ conditional: 100 }, 100)).toBe(75);
    expect(licenseScore({ conditional: 10 }, 100)).toBe(98);
    expect(licenseScore({ forbidden: 9 }, 9)).toBe(0);
    expect(licenseScore({}, 0)).toBe(100);
  });

  it("risk: the worse score turned around", () => {
    expect(riskScore(100, 100)).toBe(0);
    expect(riskScore(62, 75)).toBe(38);
    expect(riskScore(100, 0)).toBe(100);
  });

  it("a known issue is a vulnerability above info, a forbidden license, end of life or a malicious package", () => {
    expect(hasKnownIssue(group(1, { severityMax: "low" }))).toBe(true);
    expect(hasKnownIssue(group(1, { severityMax: "info" }))).toBe(false);
    expect(hasKnownIssue(group(1, { licenseCategory: "conditional" }))).toBe(false);
    expect(hasKnownIssue(group(1, { currencyState: "major-behind" }))).toBe(false);
    expect(hasKnownIssue(group(1, { eolState: "eol" }))).toBe(true);
    expect(hasKnownIssue(group(1, { maliciousState: "flagged" }))).toBe(true);
  });
});
