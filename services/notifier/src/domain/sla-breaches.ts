// What an SLA breach tells people: vulnerability.sla_breached from projects' VulnerabilitySlaBreached (the daily
// sweep, once per breach), who gets it by default and what they read. Its severity is the most severe finding in
// breach, so a routing rule's min_severity compares with what is actually overdue.
import { NOTIFICATION_SEVERITIES } from "@sca/vocabulary";
import type { NotificationContent } from "./scan-outcomes.ts";

export interface SlaBreachFacts {
  projectId: string;
  breachedCount: number;
  /** The breaches the event names (at most 500), most severe first. */
  breaches: readonly { vulnerabilityId: string; severity: string; componentName: string; componentVersion: string }[];
}

/** The team roles an SLA breach reaches by default: those who fix or decide, as for a failed scan. */
export const SLA_BREACH_ROLES: readonly string[] = ["group_admin", "team_admin", "developer"];

/** Most severe first: a breach's severity (critical to low, those with a window) is a notification severity too. */
const ORDER = [...NOTIFICATION_SEVERITIES].reverse();
/** Breaches named in the body; the rest are counted. */
const NAMED = 5;

export function slaBreachNotification(f: SlaBreachFacts): NotificationContent | null {
  if (f.breachedCount === 0) return null;
  const severity = ORDER.find((s) => f.breaches.some((b) => b.severity === s)) ?? "high";
  const plural = f.breachedCount === 1 ? "finding is" : "findings are";
  const named = f.breaches
    .slice(0, NAMED)
    .map(
      (b) =>
        `${b.vulnerabilityId} (${b.severity}) in ${b.componentName}${b.componentVersion ? ` ${b.componentVersion}` : ""}`,
    );
  const more = f.breachedCount - named.length;
  return {
    kind: "vulnerability.sla_breached",
    severity,
    title: `${f.breachedCount} vulnerability ${plural} past the remediation window`,
    body: `Still open past their remediation window: ${named.join(", ")}${more > 0 ? `, and ${more} more` : ""}.`,
    link: `/projects/${f.projectId}/vulnerabilities`,
  };
}
