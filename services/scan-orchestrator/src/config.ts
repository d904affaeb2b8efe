// The keys the scan-orchestrator reads besides the runtime's: the projects it asks, the artefact store, and its
// scans' admission, retries and retention.
import { artefactStoreKeys, key, keys, parse as p, serviceAddressKeys, type ConfigOf } from "@sca/config";
import { SERVICES } from "@sca/runtime/services";

export const scanOrchestratorKeys = {
  ...serviceAddressKeys("projects", SERVICES.projects),
  // Scans (docs/scans.md). The spec leaves the per-team cap, the disk limits, retries, leases and the artefact
  // store to the deployment: these are our keys, with our defaults.
  /** Queued plus running scans a team may have at once; past it a new scan is refused (429, batch rows rate_limited). */
  SCAN_MAX_CONCURRENT_PER_TEAM: key(p.int(20, { min: 1, max: 10000 })),
  /** New scans are refused (503 disk-pressure) past the artefact volume's limits. */
  DISK_PRESSURE_HARD_LIMIT_PERCENT: keys.DISK_PRESSURE_HARD_LIMIT_PERCENT,
  DISK_PRESSURE_MIN_FREE_BYTES: keys.DISK_PRESSURE_MIN_FREE_BYTES,
  ...artefactStoreKeys,
  /** An SBOM upload or source archive no scan has named within this many hours is deleted. */
  ARTEFACT_UPLOAD_TTL_HOURS: key(p.int(24, { min: 1, max: 720 })),
  /** Runs of one scan at most: the first plus retries (a retryable failure or a lost worker each use one). */
  SCAN_JOB_MAX_ATTEMPTS: key(p.int(3, { min: 1, max: 4 })),
  /** Back-off before retry 1, 2, 3 (one retry topic each); the last value repeats when fewer are given. */
  SCAN_JOB_RETRY_DELAYS_SECONDS: key((raw, env) => {
    const delays = p.intList([30, 120, 600], { min: 1 })(raw, env);
    if (delays.length > 3) throw new Error("must list at most 3 values (one per retry topic)");
    if (delays.some((d) => d > 86400)) throw new Error("values above 86400 are rejected");
    return delays;
  }),
  SCAN_LEASE_SECONDS: keys.SCAN_LEASE_SECONDS,
  // Retention (store/retention-sweep.ts)
  SCAN_RETENTION_SUPERSEDED_GRACE_DAYS: key(p.int(7, { min: 0, max: 3650 })),
  SCAN_RETENTION_KEEP_LAST: key(p.int(30, { min: 0, max: 100000 })),
  /** 0: no age ceiling. */
  SCAN_RETENTION_MAX_AGE_DAYS: key(p.int(180, { min: 0, max: 36500 })),
};

export type ScanOrchestratorConfig = ConfigOf<typeof scanOrchestratorKeys>;
