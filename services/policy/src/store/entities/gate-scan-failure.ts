import { defineEntity, p, type InferEntity } from "@mikro-orm/postgresql";

/**
 * A scan the gate failed when it was evaluated after the scan succeeded (docs/gate.md, "Evaluated after each scan"):
 * at most one per scan, so GateFailed is published once per scan whatever is delivered again. `clearedAt`: late
 * registry licenses made it pass since (GatePassed told so); a failure after that is told again.
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
    clearedAt: p.datetime().nullable(),
  },
});

export type GateScanFailureRow = InferEntity<typeof GateScanFailure>;
