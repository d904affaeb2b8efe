import { defineEntity, p, type InferEntity } from "@mikro-orm/postgresql";
import { statementTriggers } from "./statement-triggers.ts";

/** The triggers counting writes in finding_changes (migration FindingChanges). */
const changeTriggers = (table: string, rows: string, fn: string) => statementTriggers(table, "changed", rows, fn);

/**
 * A vulnerability as the scanner-runner's advisory database last described it (aliases grouped under one canonical
 * id), with its EPSS and KEV enrichment (docs/findings.md). Written by VulnerabilityMatchService only.
 */
export const Vulnerability = defineEntity({
  name: "Vulnerability",
  tableName: "vulnerabilities",
  properties: {
    id: p.string().length(128).primary(),
    aliases: p.json<string[]>().defaultRaw("'[]'::jsonb"),
    summary: p.text().default(""),
    /** critical, high, medium, low, info or unknown (the runner's "none" is stored as info). */
    severity: p.string().length(16),
    /** 1 unknown .. 6 critical, the sort's key. */
    severityRank: p.smallint(),
    cvssScore: p.double().strictNullable(),
    cvssVector: p.text().default(""),
    publishedAt: p.datetime().strictNullable(),
    modifiedAt: p.datetime().strictNullable(),
    references: p.json<string[]>().defaultRaw("'[]'::jsonb"),
    epssScore: p.double().strictNullable(),
    epssPercentile: p.double().strictNullable(),
    knownExploited: p.boolean().default(false),
    /** YYYY-MM-DD, "" when not on the catalog. */
    kevDueDate: p.string().length(10).default(""),
    updatedAt: p.datetime().defaultRaw("now()"),
  },
  // A change of what the finding lists filter or sort by (or a deletion) counts in finding_changes for every snapshot.
  triggers: [
    {
      name: "vulnerabilities_update_changed",
      timing: "after",
      events: ["update"],
      forEach: "statement",
      expression:
        "create trigger vulnerabilities_update_changed after update on vulnerabilities " +
        "referencing old table as before_update new table as after_update for each statement " +
        "execute function vulnerabilities_updated()",
    },
    {
      name: "vulnerabilities_delete_changed",
      timing: "after",
      events: ["delete"],
      forEach: "statement",
      expression:
        "create trigger vulnerabilities_delete_changed after delete on vulnerabilities " +
        "referencing old table as gone_vulnerabilities for each statement execute function vulnerabilities_deleted()",
    },
  ],
});

/** Every id of a vulnerability (its own included), for the lookups by advisory id. */
export const VulnerabilityAlias = defineEntity({
  name: "VulnerabilityAlias",
  tableName: "vulnerability_aliases",
  properties: {
    alias: p.string().length(128).primary(),
    vulnerabilityId: p.string().length(128),
  },
  indexes: [{ name: "vulnerability_aliases_vulnerability", properties: ["vulnerabilityId"] }],
});

/** The runner's latest verdict on a package version: one row per vulnerability affecting it. */
export const PackageVulnerability = defineEntity({
  name: "PackageVulnerability",
  tableName: "package_vulnerabilities",
  properties: {
    ecosystem: p.string().length(64).primary(),
    name: p.text().primary(),
    version: p.text().primary(),
    vulnerabilityId: p.string().length(128).primary(),
    fixedVersions: p.json<string[]>().defaultRaw("'[]'::jsonb"),
  },
  indexes: [{ name: "package_vulnerabilities_vulnerability", properties: ["vulnerabilityId"] }],
});

/** The package version a component of a matched snapshot is, as the matcher names it (what re-matching fans out by). */
export const SnapshotPackage = defineEntity({
  name: "SnapshotPackage",
  tableName: "snapshot_packages",
  properties: {
    componentRowId: p.uuid().primary(),
    scanId: p.uuid(),
    projectId: p.uuid(),
    ecosystem: p.string().length(64),
    name: p.text(),
    version: p.text(),
  },
  indexes: [
    { name: "snapshot_packages_package", properties: ["ecosystem", "name", "version"] },
    { name: "snapshot_packages_scan", properties: ["scanId"] },
  ],
});

/** A scan whose verdicts were recorded, and from which advisory data: RecordScanMatches is idempotent by it. */
export const ScanMatch = defineEntity({
  name: "ScanMatch",
  tableName: "scan_matches",
  properties: {
    scanId: p.uuid().primary(),
    projectId: p.uuid(),
    databaseVersion: p.string().length(255),
    findingCount: p.integer(),
    recordedAt: p.datetime().defaultRaw("now()"),
  },
});

/** A vulnerability affecting a component of a snapshot. Re-matching dates the ones that leave (removed_at). */
export const VulnerabilityFinding = defineEntity({
  name: "VulnerabilityFinding",
  tableName: "vulnerability_findings",
  properties: {
    id: p.uuid().primary(),
    projectId: p.uuid(),
    scanId: p.uuid(),
    componentRowId: p.uuid(),
    componentId: p.uuid(),
    /** The component's identity in the project (its inventory key: canonical purl, else name and version). */
    componentKey: p.text(),
    ecosystem: p.string().length(64),
    vulnerabilityId: p.string().length(128),
    fixedVersions: p.json<string[]>().defaultRaw("'[]'::jsonb"),
    detectedAt: p.datetime().defaultRaw("now()"),
    removedAt: p.datetime().strictNullable(),
  },
  uniques: [
    { name: "vulnerability_findings_component_vulnerability", properties: ["componentRowId", "vulnerabilityId"] },
  ],
  indexes: [
    { name: "vulnerability_findings_scan", properties: ["scanId", "vulnerabilityId"] },
    { name: "vulnerability_findings_triage", properties: ["projectId", "componentKey", "vulnerabilityId"] },
    { name: "vulnerability_findings_vulnerability", properties: ["vulnerabilityId"] },
  ],
  triggers: changeTriggers("vulnerability_findings", "changed_findings", "vulnerability_findings_changed"),
});

/**
 * The triage (VEX status) of a vulnerability on a component of a project: keyed by the component's identity, not
 * by a scan, so it survives re-matching and new scans. `version` is the If-Match counter.
 */
export const FindingTriage = defineEntity({
  name: "FindingTriage",
  tableName: "finding_triage",
  properties: {
    projectId: p.uuid().primary(),
    componentKey: p.text().primary(),
    vulnerabilityId: p.string().length(128).primary(),
    /** A CycloneDX analysis state (docs/findings.md). */
    status: p.string().length(32).default("in_triage"),
    justification: p.string().length(64).strictNullable(),
    responses: p.json<string[]>().defaultRaw("'[]'::jsonb"),
    detail: p.text().strictNullable(),
    version: p.integer().default(1),
    firstDetectedAt: p.datetime().defaultRaw("now()"),
    updatedAt: p.datetime().defaultRaw("now()"),
    /** Who last set the status (a user or API key id; "vex-import" marks an import), null before any change. */
    updatedBy: p.string().length(255).strictNullable(),
    /** When the SLA sweep found it open past its remediation window; set once per breach. */
    slaBreachedAt: p.datetime().strictNullable(),
    /** A change into a status the gate policy names in approval_required_statuses, waiting for a second person. */
    pendingStatus: p.string().length(32).strictNullable(),
    pendingJustification: p.string().length(64).strictNullable(),
    pendingResponses: p.json<string[]>().strictNullable(),
    pendingDetail: p.text().strictNullable(),
    /** The user who asked for the pending change (a confirmation by the same person is refused). */
    pendingBy: p.string().length(255).strictNullable(),
    pendingAt: p.datetime().strictNullable(),
  },
  triggers: changeTriggers("finding_triage", "changed_triage", "finding_triage_changed"),
});

/**
 * One statement that changed findings (`scanId`: of that snapshot), triage (`projectId`: of that project's
 * snapshots) or the vulnerabilities' sort and filter columns (neither: of every snapshot), added by triggers
 * (migration FindingChanges). How many a snapshot has is the version its kept finding orders are valid for.
 */
export const FindingChange = defineEntity({
  name: "FindingChange",
  tableName: "finding_changes",
  properties: {
    id: p.bigint().primary().autoincrement(),
    scanId: p.uuid().strictNullable(),
    projectId: p.uuid().strictNullable(),
  },
  indexes: [
    { name: "finding_changes_scan", properties: ["scanId"] },
    { name: "finding_changes_project", properties: ["projectId"] },
    {
      name: "finding_changes_everywhere",
      expression:
        "create index finding_changes_everywhere on finding_changes (id) where scan_id is null and project_id is null",
    },
  ],
});

/**
 * Projects' copy of a gate policy's approval_required_statuses (policy's GatePolicyChanged): one row per team or
 * organization-default policy, keyed by the team or organization id; `statuses` null when the policy does not set
 * the field (it inherits).
 */
export const ApprovalRequiredStatuses = defineEntity({
  name: "ApprovalRequiredStatuses",
  tableName: "approval_required_statuses",
  properties: {
    scopeId: p.uuid().primary(),
    organizationId: p.uuid(),
    teamId: p.uuid().strictNullable(),
    statuses: p.json<string[]>().strictNullable(),
    changedAt: p.datetime(),
  },
  indexes: [{ name: "approval_required_statuses_organization", properties: ["organizationId"] }],
});

export type VulnerabilityFindingRow = InferEntity<typeof VulnerabilityFinding>;
export type FindingTriageRow = InferEntity<typeof FindingTriage>;
