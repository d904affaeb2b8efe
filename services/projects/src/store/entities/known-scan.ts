import { defineEntity, p, type InferEntity } from "@mikro-orm/postgresql";

/**
 * Projects' copy of each scan it heard of through the scan-orchestrator's ScanStateChanged events (the orchestrator
 * owns scans): what the scan-fed project fields are counted from (docs/projects.md, "Scan-fed fields"). A scan
 * retention deleted stays as a tombstone (`deleted_at`), so a late event never brings it back. No foreign key to
 * projects: an event may name a project this service never had.
 */
export const KnownScan = defineEntity({
  name: "KnownScan",
  tableName: "known_scans",
  properties: {
    scanId: p.uuid().primary(),
    projectId: p.uuid(),
    /** queued, running, succeeded, failed or cancelled; null only on the tombstone of a scan never heard of. */
    status: p.string().length(16).strictNullable(),
    /** The scan's release label (trimmed by the orchestrator); null when none. */
    release: p.string().length(255).strictNullable(),
    /** The scan's own created_at (what "newer" reads); null only on the tombstone of a scan never heard of. */
    scanCreatedAt: p.datetime().strictNullable(),
    completedAt: p.datetime().strictNullable(),
    /** When the event that last changed the row occurred: an older one never overwrites it. */
    changedAt: p.datetime(),
    deletedAt: p.datetime().strictNullable(),
  },
  indexes: [
    // The project's newest scan, and its counts.
    {
      name: "known_scans_project_created",
      expression:
        "create index known_scans_project_created on known_scans (project_id, scan_created_at, scan_id) where deleted_at is null",
    },
    // The portfolio's newest scans (the dashboards' recent scans).
    {
      name: "known_scans_created",
      expression:
        "create index known_scans_created on known_scans (scan_created_at desc, scan_id) where deleted_at is null",
    },
  ],
  checks: [
    {
      name: "known_scans_heard_check",
      expression: "deleted_at is not null or (status is not null and scan_created_at is not null)",
    },
  ],
});

export type KnownScanRow = InferEntity<typeof KnownScan>;
