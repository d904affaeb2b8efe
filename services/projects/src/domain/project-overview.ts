// The project overview's figures from one snapshot's components (docs/projects.md, "Overview"). The columns they
// read are filled by the scan's stages and the policy consumer (severity_max by vulnerability matching,
// license_category by the license policy in force, eol_state, currency_state and malicious_state by the enrichment
// stage); a component no stage has assessed (a null column) counts as nothing known to be wrong.
import { FINDING_SEVERITIES, type FindingSeverity } from "@sca/vocabulary";
import { UNCATEGORIZED } from "./scan-feed.ts";

export const LICENSE_CATEGORIES = ["allowed", "conditional", "forbidden"] as const;

/** Components of the snapshot sharing these column values (one row of a grouped count). */
export interface ComponentGroup {
  severityMax: string | null;
  licenseCategory: string | null;
  eolState: string | null;
  currencyState: string | null;
  maliciousState: string | null;
  count: number;
}

export interface OverviewFigures {
  totalComponents: number;
  severityDistribution: Record<string, number>;
  licenseDistribution: Record<string, number>;
  componentOutcome: { with_known_issues: number; without_known_issues: number };
  eolCount: number;
  outdatedCount: number;
  maliciousCount: number;
  securityScore: number;
  licenseScore: number;
  riskScore: number;
}

// The component list's filters, word for word (docs/inventory.md): eol=true, outdated=true, malicious=true.
const isEol = (g: ComponentGroup) => g.eolState === "eol";
const isOutdated = (g: ComponentGroup) => g.currencyState !== null && !["current", "unknown"].includes(g.currencyState);
const isMalicious = (g: ComponentGroup) => g.maliciousState === "flagged";
/** A severity that is a problem (info is not). */
const isVulnerable = (g: ComponentGroup) => g.severityMax !== null && g.severityMax !== "info";

/** A known problem: a vulnerability above info, a forbidden license, end of life, or a malicious package. */
export function hasKnownIssue(g: ComponentGroup): boolean {
  return isVulnerable(g) || g.licenseCategory === "forbidden" || isEol(g) || isMalicious(g);
}

/** Points a vulnerable component of each severity takes off the security score (Dependency-Track's risk weights). */
export const SEVERITY_POINTS: Record<FindingSeverity, number> = {
  critical: 10,
  high: 5,
  medium: 3,
  low: 1,
  info: 0,
  unknown: 5,
};
/** Points an end-of-life component takes off the security score (it gets no more fixes). */
export const EOL_POINTS = 3;
/** Points a known-malicious component takes off: one is enough for 0. */
export const MALICIOUS_POINTS = 100;
/** Points a forbidden-license component takes off the license score. */
export const FORBIDDEN_POINTS = 20;
/** The most the share of conditional-license components takes off the license score (all of them conditional). */
export const CONDITIONAL_SHARE_POINTS = 25;

const clampScore = (n: number) => Math.max(0, Math.min(100, Math.round(n)));

/** security_score: 100 less the points of the vulnerable, end-of-life and malicious components, at least 0. */
export function securityScore(severity: Record<string, number>, eol: number, malicious: number): number {
  const points = FINDING_SEVERITIES.reduce((sum, s) => sum + SEVERITY_POINTS[s] * (severity[s] ?? 0), 0);
  return clampScore(100 - points - EOL_POINTS * eol - MALICIOUS_POINTS * malicious);
}

/** license_score: 100 less 20 per forbidden component and up to 25 for the share of conditional ones, at least 0. */
export function licenseScore(categories: Record<string, number>, total: number): number {
  const conditionalShare = total === 0 ? 0 : (categories.conditional ?? 0) / total;
  return clampScore(100 - FORBIDDEN_POINTS * (categories.forbidden ?? 0) - CONDITIONAL_SHARE_POINTS * conditionalShare);
}

/** risk_score: the worse of the two scores, turned around (0: nothing known wrong, 100: as bad as it gets). */
export function riskScore(security: number, license: number): number {
  return 100 - Math.min(security, license);
}

/** Every figure of the overview from the snapshot's grouped counts (none: a project without a snapshot). */
export function overviewFigures(groups: readonly ComponentGroup[]): OverviewFigures {
  const severity: Record<string, number> = Object.fromEntries(FINDING_SEVERITIES.map((s) => [s, 0]));
  const license: Record<string, number> = Object.fromEntries([...LICENSE_CATEGORIES, UNCATEGORIZED].map((c) => [c, 0]));
  let total = 0;
  let withIssues = 0;
  let eol = 0;
  let outdated = 0;
  let malicious = 0;
  for (const g of groups) {
    total += g.count;
    if (g.severityMax !== null) severity[g.severityMax] = (severity[g.severityMax] ?? 0) + g.count;
    const category = g.licenseCategory ?? UNCATEGORIZED;
    license[category] = (license[category] ?? 0) + g.count;
    if (hasKnownIssue(g)) withIssues += g.count;
    if (isEol(g)) eol += g.count;
    if (isOutdated(g)) outdated += g.count;
    if (isMalicious(g)) malicious += g.count;
  }
  const security = securityScore(severity, eol, malicious);
  const licenseFigure = licenseScore(license, total);
  return {
    totalComponents: total,
    severityDistribution: severity,
    licenseDistribution: license,
    componentOutcome: { with_known_issues: withIssues, without_known_issues: total - withIssues },
    eolCount: eol,
    outdatedCount: outdated,
    maliciousCount: malicious,
    securityScore: security,
    licenseScore: licenseFigure,
    riskScore: riskScore(security, licenseFigure),
  };
}
