import { defineEntity, p, type InferEntity } from "@mikro-orm/postgresql";

/**
 * A scan the gate failed when it was evaluated after the scan succeeded (docs/gate.md, "Evaluated after each scan"):
 * at most one per scan, so GateFailed is published once per scan whatever is delivered again.
 */
export const GateScanFailure = defineEntity({
  name: "GateScanFailure",
  tableName: "gate_scan_failures",
  properties: {
    scanId: p.uuid().primary(),
    projectId: p.uuid(),
    /** The failing checks' codes, comma-separated. */
    reasonCodes: p.text(),
    failedAt: p.datetime(),
  },
});

export type GateScanFailureRow = InferEntity<typeof GateScanFailure>;
