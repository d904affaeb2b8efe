// The gate verdict of a scan (docs/gate.md, "The verdict"): four checks over the facts projects aggregates, each
// failing check a reason naming what to act on. Pure: facts and the effective policy in, the result out.
import type { EffectiveGateValues, GateDeployment } from "./gate-policy.ts";

export interface GateFinding {
  findingId: string;
  vulnerabilityId: string;
  severity: string;
  epssScore?: number;
  status: string;
  componentId: string;
  componentName: string;
  componentVersion?: string;
  purl?: string;
}

export interface GateComponent {
  componentId: string;
  name: string;
  version?: string;
  purl?: string;
  license?: string;
  licenseCategory?: string;
  maliciousState?: string;
}

/** What projects answers for the latest succeeded scan (scanId undefined: the project has none). */
export interface GateFacts {
  scanId?: string;
  reachabilityAnalysed: boolean;
  openFindingCount: number;
  triagedFindingCount: number;
  criticalCount: number;
  criticalFindings: GateFinding[];
  epssScoredCount: number;
  epssAtOrAboveCount: number;
  epssFindings: GateFinding[];
  forbiddenLicenseCount: number;
  forbiddenComponents: GateComponent[];
  maliciousCount: number;
  maliciousComponents: GateComponent[];
}

export type EpssOutcome = "off" | "pass" | "fail" | "missing_data_allowed" | "missing_data_blocked";

export interface GateReason {
  code:
    | "no_scan"
    | "critical_vulnerabilities"
    | "forbidden_licenses"
    | "epss_threshold"
    | "epss_missing_data"
    | "malicious_components";
  message: string;
  count: number;
  findings: GateFinding[];
  components: GateComponent[];
  truncated: boolean;
}

export interface GateVerdict {
  passed: boolean;
  outcome: "pass" | "fail" | "no_scan";
  reasons: GateReason[];
  epssOutcome: EpssOutcome;
  maliciousGateEnforced: boolean;
  maliciousComponentCount: number;
  /** reachable_critical_only narrowed the criticals: asked for, and the scan carries reachability analysis. */
  reachableCriticalOnlyApplied: boolean;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
const ids = (items: { vulnerabilityId?: string; name?: string }[]) =>
  items.map((i) => i.vulnerabilityId ?? i.name).join(", ");

/**
 * EPSS: off without a threshold; with one, any open finding at or above it fails. When open findings exist and none
 * has a score, GATE_EPSS_ON_MISSING_DATA decides (a project with no open finding has nothing to miss: pass).
 */
export function epssOutcomeOf(facts: GateFacts, threshold: number | null, onMissing: "allow" | "block"): EpssOutcome {
  if (threshold === null) return "off";
  if (facts.epssAtOrAboveCount > 0) return "fail";
  if (facts.openFindingCount > 0 && facts.epssScoredCount === 0)
    return onMissing === "block" ? "missing_data_blocked" : "missing_data_allowed";
  return "pass";
}

export function gateVerdict(facts: GateFacts, policy: EffectiveGateValues, deployment: GateDeployment): GateVerdict {
  const maliciousGateEnforced = deployment.maliciousEnabled && policy.malicious_blocks;
  const reachableCriticalOnlyApplied = policy.reachable_critical_only && facts.reachabilityAnalysed;
  if (facts.scanId === undefined)
    return {
      passed: false,
      outcome: "no_scan",
      reasons: [
        {
          code: "no_scan",
          message: "The project has no succeeded scan: there is nothing to judge. Upload an SBOM or start a scan.",
          count: 0,
          findings: [],
          components: [],
          truncated: false,
        },
      ],
      epssOutcome: policy.epss_threshold === null ? "off" : "pass",
      maliciousGateEnforced,
      maliciousComponentCount: 0,
      reachableCriticalOnlyApplied: false,
    };
  const reasons: GateReason[] = [];
  if (facts.criticalCount > 0) {
    const only =
      policy.reachable_critical_only && !facts.reachabilityAnalysed
        ? " (the scan has no reachability analysis, so every critical counts)"
        : "";
    reasons.push({
      code: "critical_vulnerabilities",
      message:
        `${plural(facts.criticalCount, "open critical vulnerability finding", "open critical vulnerability findings")}${only}: ` +
        `${ids(facts.criticalFindings)}. Upgrade the components, or triage the findings as not_affected or resolved.`,
      count: facts.criticalCount,
      findings: facts.criticalFindings,
      components: [],
      truncated: facts.criticalFindings.length < facts.criticalCount,
    });
  }
  if (facts.forbiddenLicenseCount > 0)
    reasons.push({
      code: "forbidden_licenses",
      message:
        `${plural(facts.forbiddenLicenseCount, "component has", "components have")} a forbidden license: ` +
        `${ids(facts.forbiddenComponents)}. Replace them, or ask for a license exception in the team's license policy.`,
      count: facts.forbiddenLicenseCount,
      findings: [],
      components: facts.forbiddenComponents,
      truncated: facts.forbiddenComponents.length < facts.forbiddenLicenseCount,
    });
  const epssOutcome = epssOutcomeOf(facts, policy.epss_threshold, deployment.epssOnMissingData);
  if (epssOutcome === "fail")
    reasons.push({
      code: "epss_threshold",
      message:
        `${plural(facts.epssAtOrAboveCount, "open finding has", "open findings have")} an EPSS score at or above ` +
        `${policy.epss_threshold}: ${ids(facts.epssFindings)}.`,
      count: facts.epssAtOrAboveCount,
      findings: facts.epssFindings,
      components: [],
      truncated: facts.epssFindings.length < facts.epssAtOrAboveCount,
    });
  if (epssOutcome === "missing_data_blocked")
    reasons.push({
      code: "epss_missing_data",
      message:
        `None of the ${plural(facts.openFindingCount, "open finding", "open findings")} has an EPSS score and ` +
        "GATE_EPSS_ON_MISSING_DATA is block.",
      count: facts.openFindingCount,
      findings: [],
      components: [],
      truncated: false,
    });
  const maliciousComponentCount = maliciousGateEnforced ? facts.maliciousCount : 0;
  if (maliciousComponentCount > 0)
    reasons.push({
      code: "malicious_components",
      message:
        `${plural(maliciousComponentCount, "component is a known-malicious package", "components are known-malicious packages")}: ` +
        `${ids(facts.maliciousComponents)}. Remove them and rotate any secret the build could reach.`,
      count: maliciousComponentCount,
      findings: [],
      components: facts.maliciousComponents,
      truncated: facts.maliciousComponents.length < maliciousComponentCount,
    });
  const passed = reasons.length === 0;
  return {
    passed,
    outcome: passed ? "pass" : "fail",
    reasons,
    epssOutcome,
    maliciousGateEnforced,
    maliciousComponentCount,
    reachableCriticalOnlyApplied,
  };
}

/** A project's kept counts of its newest snapshot (projects' dashboard figures): the checks' inputs, no items. */
export interface GateFigures {
  scanned: boolean;
  openFindingCount: number;
  criticalCount: number;
  forbiddenLicenseCount: number;
  maliciousCount: number;
  epssScoredCount: number;
  /** The highest EPSS score of the open findings; null when none has one. */
  epssMax: number | null;
}

/**
 * The facts the verdict reads, from kept figures: the same checks judge them, so only the outcome and the counts
 * are whole. Findings at or above a threshold are known only as "some" (the highest score reaches it), and no check
 * lists its items.
 */
export function gateFactsOfFigures(figures: GateFigures, epssThreshold: number | null): GateFacts {
  const epssReached = epssThreshold !== null && figures.epssMax !== null && figures.epssMax >= epssThreshold;
  return {
    ...(figures.scanned ? { scanId: "kept" } : {}),
    reachabilityAnalysed: false,
    openFindingCount: figures.openFindingCount,
    triagedFindingCount: 0,
    criticalCount: figures.criticalCount,
    criticalFindings: [],
    epssScoredCount: figures.epssScoredCount,
    epssAtOrAboveCount: epssReached ? 1 : 0,
    epssFindings: [],
    forbiddenLicenseCount: figures.forbiddenLicenseCount,
    forbiddenComponents: [],
    maliciousCount: figures.maliciousCount,
    maliciousComponents: [],
  };
}
