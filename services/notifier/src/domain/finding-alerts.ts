// What re-matching and KEV listings tell people: findings.new from projects' FindingsChanged (a refresh of the
// advisories found new findings in a project's newest snapshot) and vulnerability.kev_listed from
// VulnerabilitiesKevListed (a KEV listing reached open findings), who gets them by default and what they read.
import type { NotificationSeverity } from "@sca/vocabulary";
import type { NotificationContent } from "./scan-outcomes.ts";

export interface NamedFinding {
  vulnerabilityId: string;
  severity: string;
  componentName: string;
  componentVersion: string;
}

/** findings.new: those who work on the project's code, as for a succeeded scan (news, not an alarm). */
export const FINDINGS_NEW_ROLES: readonly string[] = ["team_admin", "developer"];
/** vulnerability.kev_listed: those who fix or decide, as for a failed scan or an SLA breach. */
export const KEV_LISTED_ROLES: readonly string[] = ["group_admin", "team_admin", "developer"];

/** Findings named in a body; the rest are counted. */
const NAMED = 5;

const nameOf = (f: NamedFinding) =>
  `${f.vulnerabilityId}${f.severity ? ` (${f.severity})` : ""} in ${f.componentName}${f.componentVersion ? ` ${f.componentVersion}` : ""}`;

function listed(findings: readonly NamedFinding[], count: number): string {
  const named = findings.slice(0, NAMED).map(nameOf);
  const more = count - named.length;
  return `${named.join(", ")}${more > 0 ? `, and ${more} more` : ""}`;
}

export interface FindingsNewFacts {
  projectId: string;
  addedCount: number;
  added: readonly NamedFinding[];
}

/** Only findings that appeared raise it; a refresh that only removed findings tells nobody. */
export function findingsNewNotification(f: FindingsNewFacts): NotificationContent | null {
  if (f.addedCount <= 0) return null;
  const plural = f.addedCount === 1 ? "vulnerability finding" : "vulnerability findings";
  return {
    kind: "findings.new",
    severity: null,
    title: `${f.addedCount} new ${plural} after an advisory update`,
    body: `Updated advisories match components of the latest scan: ${listed(f.added, f.addedCount)}.`,
    link: `/projects/${f.projectId}/vulnerabilities`,
  };
}

export interface KevListingFacts {
  projectId: string;
  listedCount: number;
  findings: readonly (NamedFinding & { kevDueDate: string })[];
}

const KEV_SEVERITY: NotificationSeverity = "critical";

export function kevListedNotification(f: KevListingFacts): NotificationContent | null {
  if (f.listedCount <= 0) return null;
  const plural = f.listedCount === 1 ? "open finding is" : "open findings are";
  const due = f.findings
    .map((x) => x.kevDueDate)
    .filter(Boolean)
    .sort()[0];
  return {
    kind: "vulnerability.kev_listed",
    severity: KEV_SEVERITY,
    title: `${f.listedCount} ${plural} now known to be exploited`,
    body:
      `The known-exploited vulnerabilities catalog now lists: ${listed(f.findings, f.listedCount)}.` +
      (due ? ` The catalog's earliest remediation due date is ${due}.` : ""),
    link: `/projects/${f.projectId}/vulnerabilities`,
  };
}
