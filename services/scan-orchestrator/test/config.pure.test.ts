// The keys the scan-orchestrator alone reads (src/config.ts), with their documented defaults and bounds.
import { describe, expect, it } from "@jest/globals";
import { loadConfig, pickKeys } from "@sca/config";
import { scanOrchestratorKeys } from "../src/config.ts";

const load = <K extends keyof typeof scanOrchestratorKeys>(names: K[], env: Record<string, string>) =>
  loadConfig(pickKeys(scanOrchestratorKeys, names), env);

describe("the scan-orchestrator's configuration keys", () => {
  it("gives the scan keys their documented defaults (docs/scans.md)", () => {
    const c = load(
      [
        "SCAN_MAX_CONCURRENT_PER_TEAM",
        "SCAN_RETENTION_SUPERSEDED_GRACE_DAYS",
        "SCAN_RETENTION_KEEP_LAST",
        "SCAN_RETENTION_MAX_AGE_DAYS",
        "SCAN_JOB_MAX_ATTEMPTS",
        "SCAN_JOB_RETRY_DELAYS_SECONDS",
        "DISK_PRESSURE_HARD_LIMIT_PERCENT",
        "DISK_PRESSURE_MIN_FREE_BYTES",
        "ARTEFACT_UPLOAD_TTL_HOURS",
      ],
      {},
    );
    expect(c).toEqual({
      SCAN_MAX_CONCURRENT_PER_TEAM: 20,
      SCAN_RETENTION_SUPERSEDED_GRACE_DAYS: 7,
      SCAN_RETENTION_KEEP_LAST: 30,
      SCAN_RETENTION_MAX_AGE_DAYS: 180,
      SCAN_JOB_MAX_ATTEMPTS: 3,
      SCAN_JOB_RETRY_DELAYS_SECONDS: [30, 120, 600],
      DISK_PRESSURE_HARD_LIMIT_PERCENT: 95,
      DISK_PRESSURE_MIN_FREE_BYTES: 1073741824,
      ARTEFACT_UPLOAD_TTL_HOURS: 24,
    });
  });

  it("takes at most three retry delays, one per retry topic", () => {
    expect(
      load(["SCAN_JOB_RETRY_DELAYS_SECONDS"], { SCAN_JOB_RETRY_DELAYS_SECONDS: "5" }).SCAN_JOB_RETRY_DELAYS_SECONDS,
    ).toEqual([5]);
    expect(() => load(["SCAN_JOB_RETRY_DELAYS_SECONDS"], { SCAN_JOB_RETRY_DELAYS_SECONDS: "1,2,3,4" })).toThrow(
      /SCAN_JOB_RETRY_DELAYS_SECONDS must list at most 3/,
    );
    expect(() => load(["SCAN_JOB_RETRY_DELAYS_SECONDS"], { SCAN_JOB_RETRY_DELAYS_SECONDS: "0" })).toThrow(
      /values below 1/,
    );
    expect(() => load(["SCAN_JOB_MAX_ATTEMPTS"], { SCAN_JOB_MAX_ATTEMPTS: "5" })).toThrow(
      /SCAN_JOB_MAX_ATTEMPTS must be between 1 and 4/,
    );
  });
});
