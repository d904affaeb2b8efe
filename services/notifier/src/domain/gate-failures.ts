// What a failing build gate tells people: gate.failed from policy's GateFailed (the gate judged after a scan
// succeeded, or after an advisory update, a malicious-package snapshot or licenses arriving late from the package
// registries changed the newest snapshot; published once per scan, only when it fails), and gate.passed from
// GatePassed when late licenses made such a failure pass, who gets it by default and what they read.
import type { NotificationContent } from "./scan-outcomes.ts";

export interface GateFailureFacts {
  projectId: string;
  scanId: string;
  /**
   * GateFailed's cause: "scan", "advisory_update", "malicious_snapshot" or "license_update" ("" from an older
   * policy: a scan).
   */
  cause?: string;
  reasons: readonly { code: string; message: string; count: number }[];
}

/** Why the gate now fails when no scan made it fail: the title says so, since nobody just pushed anything. */
const AFTER: Record<string, string> = {
  advisory_update: " after an advisory update",
  malicious_snapshot: " after a malicious-package snapshot update",
  license_update: " after licenses arrived from the package registries",
};

/** Those who fix or decide, as for a failed scan. */
export const GATE_FAILED_ROLES: readonly string[] = ["group_admin", "team_admin", "developer"];

export function gateFailedNotification(f: GateFailureFacts): NotificationContent | null {
  if (f.reasons.length === 0) return null;
  const checks = f.reasons.map((r) => r.code.replaceAll("_", " ")).join(", ");
  return {
    kind: "gate.failed",
    severity: "high",
    title: `The build gate ${f.cause && AFTER[f.cause] ? `now fails${AFTER[f.cause]}` : "fails for the latest scan"}: ${checks}`,
    body: f.reasons.map((r) => r.message).join(" "),
    link: `/projects/${f.projectId}/scans/${f.scanId}`,
  };
}

export interface GatePassFacts {
  projectId: string;
  scanId: string;
}

/** The failure people were told of is over: those told hear it, in-app (no e-mail by default: nothing to do). */
export function gatePassedNotification(f: GatePassFacts): NotificationContent {
  return {
    kind: "gate.passed",
    severity: null,
    title: "The build gate now passes after licenses arrived from the package registries",
    body:
      "Licenses the package registries state for components that had none when the scan succeeded changed the " +
      "verdict: the gate passes for the latest scan.",
    link: `/projects/${f.projectId}/scans/${f.scanId}`,
  };
}
