// The gate's pure rules: validating a policy's fields, the value in effect per field with its source (team,
// organization, deployment, default), the deprecated sources string, and the verdict over a scan's facts (each check,
// EPSS with GATE_EPSS_ON_MISSING_DATA, the malicious check on and off, no scan).
import { describe, expect, it } from "@jest/globals";
import { effectiveGateValues, planGatePolicy, sourcesLegacy, type GateDeployment } from "../src/domain/gate-policy.ts";
import {
  epssOutcomeOf,
  gateFactsOfFigures,
  gateVerdict,
  type GateFacts,
  type GateFigures,
} from "../src/domain/gate-verdict.ts";

const DEPLOYMENT: GateDeployment = { maliciousEnabled: true, epssThreshold: null, epssOnMissingData: "allow" };

const CLEAN: GateFacts = {
  scanId: "00000000-0000-4000-8000-000000000001",
  reachabilityAnalysed: false,
  openFindingCount: 0,
  triagedFindingCount: 0,
  criticalCount: 0,
  criticalFindings: [],
  epssScoredCount: 0,
  epssAtOrAboveCount: 0,
  epssFindings: [],
  forbiddenLicenseCount: 0,
  forbiddenComponents: [],
  maliciousCount: 0,
  maliciousComponents: [],
};

const finding = (id: string, epss?: number) => ({
  findingId: `f-${id}`,
  vulnerabilityId: id,
  severity: "critical",
  ...(epss === undefined ? {} : { epssScore: epss }),
  status: "in_triage",
  componentId: "c-1",
  componentName: "lodash",
  componentVersion: "4.17.20",
});

describe("planGatePolicy", () => {
  it("keeps only what the request sets; statuses canonical and unique", () => {
    const plan = planGatePolicy({ approvalRequiredStatuses: ["resolved", "not_affected", "resolved"] });
    expect(plan).toEqual({
      ok: true,
      name: null,
      settings: { approval_required_statuses: ["not_affected", "resolved"] },
    });
    expect(planGatePolicy({})).toEqual({ ok: true, name: null, settings: {} });
  });

  it("an explicit null epss_threshold is set (off), unlike a left-out one", () => {
    const plan = planGatePolicy({ epssThreshold: null, maliciousBlocks: false, name: "  Strict  " });
    expect(plan).toEqual({ ok: true, name: "Strict", settings: { epss_threshold: null, malicious_blocks: false } });
  });

  it("names every bad field", () => {
    const plan = planGatePolicy({ approvalRequiredStatuses: ["open"], epssThreshold: 1.5, name: "x".repeat(256) });
    expect(plan.ok).toBe(false);
    if (plan.ok) return;
    expect(plan.violations.map((v) => v.path).sort()).toEqual([
      "approval_required_statuses[0]",
      "epss_threshold",
      "name",
    ]);
    expect(planGatePolicy({ epssThreshold: Number.NaN }).ok).toBe(false);
    expect(planGatePolicy({ epssThreshold: 0 }).ok).toBe(true);
    expect(planGatePolicy({ epssThreshold: 1 }).ok).toBe(true);
  });
});

describe("effectiveGateValues", () => {
  it("built-in defaults when nothing sets a field", () => {
    const v = effectiveGateValues(null, null, DEPLOYMENT);
    expect(v).toEqual({
      approval_required_statuses: [],
      epss_threshold: null,
      malicious_blocks: true,
      reachable_critical_only: false,
      sources: {
        approval_required_statuses: "default",
        epss_threshold: "default",
        malicious_blocks: "default",
        reachable_critical_only: "default",
      },
    });
    expect(sourcesLegacy(v.sources)).toBe(
      "approval_required_statuses=default,epss_threshold=default,malicious_blocks=default,reachable_critical_only=default",
    );
  });

  it("per field: team over organization over the deployment's GATE_EPSS_THRESHOLD", () => {
    const deployment = { ...DEPLOYMENT, epssThreshold: 0.5 };
    const org = { malicious_blocks: false, reachable_critical_only: true };
    const team = { reachable_critical_only: false, approval_required_statuses: ["not_affected" as const] };
    const v = effectiveGateValues(team, org, deployment);
    expect(v).toMatchObject({
      approval_required_statuses: ["not_affected"],
      epss_threshold: 0.5,
      malicious_blocks: false,
      reachable_critical_only: false,
      sources: {
        approval_required_statuses: "team",
        epss_threshold: "deployment",
        malicious_blocks: "organization",
        reachable_critical_only: "team",
      },
    });
  });

  it("an explicit null threshold turns the deployment's off", () => {
    const v = effectiveGateValues(null, { epss_threshold: null }, { ...DEPLOYMENT, epssThreshold: 0.2 });
    expect(v.epss_threshold).toBeNull();
    expect(v.sources.epss_threshold).toBe("organization");
    expect(effectiveGateValues({ epss_threshold: 0.9 }, { epss_threshold: null }, DEPLOYMENT).epss_threshold).toBe(0.9);
  });
});

describe("gateVerdict", () => {
  const policy = effectiveGateValues(null, null, DEPLOYMENT);

  it("passes a clean scan and fails a project without one", () => {
    expect(gateVerdict(CLEAN, policy, DEPLOYMENT)).toMatchObject({ passed: true, outcome: "pass", reasons: [] });
    const { scanId: _, ...noScan } = CLEAN;
    const v = gateVerdict(noScan, policy, DEPLOYMENT);
    expect(v).toMatchObject({ passed: false, outcome: "no_scan" });
    expect(v.reasons.map((r) => r.code)).toEqual(["no_scan"]);
  });

  it("each failing check is a reason naming its items, truncated when the list is bounded", () => {
    const facts: GateFacts = {
      ...CLEAN,
      openFindingCount: 3,
      criticalCount: 3,
      criticalFindings: [finding("CVE-2021-23337"), finding("GHSA-xxxx")],
      forbiddenLicenseCount: 1,
      forbiddenComponents: [
        { componentId: "c-2", name: "gpl-thing", license: "AGPL-3.0-only", licenseCategory: "forbidden" },
      ],
      maliciousCount: 1,
      maliciousComponents: [{ componentId: "c-3", name: "evil", maliciousState: "flagged" }],
    };
    const v = gateVerdict(facts, policy, DEPLOYMENT);
    expect(v.passed).toBe(false);
    expect(v.reasons.map((r) => [r.code, r.count, r.truncated])).toEqual([
      ["critical_vulnerabilities", 3, true],
      ["forbidden_licenses", 1, false],
      ["malicious_components", 1, false],
    ]);
    expect(v.reasons[0]!.message).toContain("CVE-2021-23337, GHSA-xxxx");
    expect(v.reasons[1]!.message).toContain("gpl-thing");
    expect(v.maliciousGateEnforced).toBe(true);
    expect(v.maliciousComponentCount).toBe(1);
  });

  it("the malicious check is not run when GATE_MALICIOUS_ENABLED is false or the policy's malicious_blocks is", () => {
    const facts = { ...CLEAN, maliciousCount: 2, maliciousComponents: [{ componentId: "c", name: "evil" }] };
    const off = gateVerdict(facts, policy, { ...DEPLOYMENT, maliciousEnabled: false });
    expect(off).toMatchObject({ passed: true, maliciousGateEnforced: false, maliciousComponentCount: 0 });
    const notBlocking = effectiveGateValues({ malicious_blocks: false }, null, DEPLOYMENT);
    expect(gateVerdict(facts, notBlocking, DEPLOYMENT)).toMatchObject({ passed: true, maliciousGateEnforced: false });
  });

  it("EPSS: off, pass, fail at or above, and missing data per GATE_EPSS_ON_MISSING_DATA", () => {
    expect(epssOutcomeOf(CLEAN, null, "block")).toBe("off");
    expect(epssOutcomeOf(CLEAN, 0.5, "block")).toBe("pass");
    const unscored = { ...CLEAN, openFindingCount: 2, epssScoredCount: 0 };
    expect(epssOutcomeOf(unscored, 0.5, "allow")).toBe("missing_data_allowed");
    expect(epssOutcomeOf(unscored, 0.5, "block")).toBe("missing_data_blocked");
    const scoredBelow = { ...unscored, epssScoredCount: 1 };
    expect(epssOutcomeOf(scoredBelow, 0.5, "block")).toBe("pass");
    const above = { ...scoredBelow, epssAtOrAboveCount: 1, epssFindings: [finding("CVE-1", 0.5)] };
    expect(epssOutcomeOf(above, 0.5, "allow")).toBe("fail");
    const strict = effectiveGateValues({ epss_threshold: 0.5 }, null, DEPLOYMENT);
    expect(gateVerdict(above, strict, DEPLOYMENT).reasons.map((r) => r.code)).toEqual(["epss_threshold"]);
    expect(
      gateVerdict(unscored, strict, { ...DEPLOYMENT, epssOnMissingData: "block" }).reasons.map((r) => r.code),
    ).toEqual(["epss_missing_data"]);
    expect(gateVerdict(unscored, strict, DEPLOYMENT).passed).toBe(true);
  });

  it("reachable_critical_only on an unanalysed scan counts every critical, and says so", () => {
    const reachableOnly = effectiveGateValues({ reachable_critical_only: true }, null, DEPLOYMENT);
    const v = gateVerdict(
      { ...CLEAN, criticalCount: 1, criticalFindings: [finding("CVE-9")] },
      reachableOnly,
      DEPLOYMENT,
    );
    expect(v.passed).toBe(false);
    expect(v.reasons[0]!.message).toMatch(/no reachability analysis/);
  });
});

describe("gateFactsOfFigures", () => {
  // Two highs scored 0.01 and 0.02: the dashboards' kept figures of a snapshot without a critical.
  const figures: GateFigures = {
    scanned: true,
    openFindingCount: 4,
    criticalCount: 0,
    forbiddenLicenseCount: 0,
    maliciousCount: 0,
    epssScoredCount: 2,
    epssMax: 0.02,
  };
  const outcome = (f: GateFigures, threshold: number | null, d: GateDeployment = DEPLOYMENT) => {
    const policy = { ...effectiveGateValues(null, null, d), epss_threshold: threshold };
    return gateVerdict(gateFactsOfFigures(f, threshold), policy, d).outcome;
  };

  it("judges kept figures by the same checks: the EPSS threshold reached by the highest score, at or above", () => {
    expect(outcome(figures, null)).toBe("pass");
    expect(outcome(figures, 0.015)).toBe("fail");
    expect(outcome(figures, 0.02)).toBe("fail");
    expect(outcome(figures, 0.03)).toBe("pass");
    expect(outcome({ ...figures, epssScoredCount: 0, epssMax: null }, 0.5)).toBe("pass");
    expect(
      outcome({ ...figures, epssScoredCount: 0, epssMax: null }, 0.5, { ...DEPLOYMENT, epssOnMissingData: "block" }),
    ).toBe("fail");
  });

  it("fails on criticals, forbidden licenses and enforced malicious components; no_scan without a snapshot", () => {
    expect(outcome({ ...figures, criticalCount: 1 }, null)).toBe("fail");
    expect(outcome({ ...figures, forbiddenLicenseCount: 1 }, null)).toBe("fail");
    expect(outcome({ ...figures, maliciousCount: 1 }, null)).toBe("fail");
    expect(outcome({ ...figures, maliciousCount: 1 }, null, { ...DEPLOYMENT, maliciousEnabled: false })).toBe("pass");
    expect(outcome({ ...figures, scanned: false }, null)).toBe("no_scan");
  });
});
