// When policy judges the build gate on its own (docs/gate.md, "Evaluated after each scan"): after a scan succeeded,
// and again when something changes what the project's newest snapshot holds: licenses from the package registries
// changing its components' categories (the lookup may end after the scan succeeded), a re-match after an advisory
// update adding findings, or a malicious-package snapshot refresh flagging components. Triage and policy changes are people's own acts, answered
// by the gate-result read they make, and raise nothing here.
export type GateCause = "scan" | "advisory_update" | "malicious_snapshot" | "license_update";

/** The snapshot to judge and why; the judgement applies only while it is still the project's newest. */
export interface GateTrigger {
  projectId: string;
  scanId: string;
  cause: GateCause;
}

/** The events that may judge, as far as the rule reads them (events/gate-evaluation.ts maps each message). */
export type GateTriggerEvent = { projectId: string; scanId: string } & (
  | { event: "scan_state_changed"; status: string; previousStatus: string; landedSuperseded: boolean }
  | { event: "findings_changed"; addedCount: number }
  | { event: "malicious_components_flagged"; cause: string; flaggedCount: number }
  | { event: "inventory_licenses_categorised" }
);

export function gateTriggerOf(event: GateTriggerEvent): GateTrigger | null {
  const at = (cause: GateCause): GateTrigger => ({ projectId: event.projectId, scanId: event.scanId, cause });
  switch (event.event) {
    case "scan_state_changed":
      // Into succeeded once; a scan that landed superseded is not the newest snapshot.
      return event.status === "succeeded" && event.previousStatus !== "succeeded" && !event.landedSuperseded
        ? at("scan")
        : null;
    case "findings_changed":
      // Only added findings can make a passing gate fail.
      return event.addedCount > 0 ? at("advisory_update") : null;
    case "malicious_components_flagged":
      // A scan's own stamping is judged with the scan's success.
      return event.cause === "snapshot_refresh" && event.flaggedCount > 0 ? at("malicious_snapshot") : null;
    case "inventory_licenses_categorised":
      // Judged even when this categorisation changed nothing: another may have categorised the licenses first.
      return at("license_update");
  }
}
