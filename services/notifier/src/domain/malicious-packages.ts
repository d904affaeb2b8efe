// What a malicious package tells people: package.malicious from projects' MaliciousComponentsFlagged (components of
// a project that became flagged, at a scan or after the malicious snapshot changed; once per becoming flagged), who
// gets it by default and what they read. Always critical: a known-malicious package is to be removed whatever its
// vulnerabilities say.
import type { NotificationContent } from "./scan-outcomes.ts";

export interface MaliciousFlagFacts {
  projectId: string;
  flaggedCount: number;
  /** The components the event names (at most 500). */
  components: readonly { name: string; version: string; maliciousId: string }[];
}

/** The team roles reached by default: those who fix or decide, as for a failed scan or an SLA breach. */
export const MALICIOUS_PACKAGE_ROLES: readonly string[] = ["group_admin", "team_admin", "developer"];

/** Components named in the body; the rest are counted. */
const NAMED = 5;

export function maliciousPackageNotification(f: MaliciousFlagFacts): NotificationContent | null {
  if (f.flaggedCount === 0) return null;
  const named = f.components
    .slice(0, NAMED)
    .map((c) => `${c.name}${c.version ? ` ${c.version}` : ""}${c.maliciousId ? ` (${c.maliciousId})` : ""}`);
  const more = f.flaggedCount - named.length;
  const plural = f.flaggedCount === 1 ? "package is" : "packages are";
  return {
    kind: "package.malicious",
    severity: "critical",
    title: `${f.flaggedCount} known-malicious ${plural} in the project`,
    body: `Flagged by the malicious-package snapshot: ${named.join(", ")}${more > 0 ? `, and ${more} more` : ""}.`,
    link: `/projects/${f.projectId}/components?malicious=flagged`,
  };
}
