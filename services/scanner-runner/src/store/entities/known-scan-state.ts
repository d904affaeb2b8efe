import { defineEntity, p, type InferEntity } from "@mikro-orm/postgresql";

/**
 * The newest state this service has heard of for a scan, from the scan-orchestrator's ScanStateChanged events (every
 * instance writes it; the newest attempt and event win). A job checks it before each stage: a scan that moved on to
 * a later attempt or ended (cancelled, failed, succeeded) is no longer this job's to run. The orchestrator's table
 * stays the truth; this is what the worker has heard of it.
 */
export const KnownScanState = defineEntity({
  name: "KnownScanState",
  tableName: "known_scan_states",
  properties: {
    scanId: p.uuid().primary(),
    /** queued, running, succeeded, failed or cancelled. */
    status: p.string().length(16),
    attempt: p.integer(),
    /** When the orchestrator made the change (the event's occurred_at): a later event of an attempt wins. */
    occurredAt: p.datetime(),
    updatedAt: p.datetime().defaultRaw("now()"),
  },
});

export type KnownScanStateRow = InferEntity<typeof KnownScanState>;
