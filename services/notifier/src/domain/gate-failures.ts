// What a failing build gate tells people: gate.failed from policy's GateFailed (the gate evaluated once after a scan
// succeeded, published only when it fails), who gets it by default and what they read.
import type { NotificationContent } from "./scan-outcomes.ts";

export interface GateFailureFacts {
  projectId: string;
  scanId: string;
  reasons: readonly { code: string; message: string; count: number }[];
}

/** Those who fix or decide, as for a failed scan. */
export const GATE_FAILED_ROLES: readonly string[] = ["group_admin", "team_admin", "developer"];

export function gateFailedNotification(f: GateFailureFacts): NotificationContent | null {
  if (f.reasons.length === 0) return null;
  const checks = f.reasons.map((r) => r.code.replaceAll("_", " ")).join(", ");
  return {
    kind: "gate.failed",
    severity: "high",
    title: `The build gate fails for the latest scan: ${checks}`,
    body: f.reasons.map((r) => r.message).join(" "),
    link: `/projects/${f.projectId}/scans/${f.scanId}`,
  };
}
