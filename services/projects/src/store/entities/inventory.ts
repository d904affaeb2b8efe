import { defineEntity, p, type InferEntity } from "@mikro-orm/postgresql";
import { fenceTriggers } from "../write-fences.ts";
import { statementTriggers } from "./statement-triggers.ts";

/**
 * The inventory of one succeeded scan of a project: written once, in one transaction, by IngestInventory
 * (docs/inventory.md). Scans live in the scan-orchestrator: the scan id is kept as given, without a foreign key.
 */
export const InventorySnapshot = defineEntity({
  name: "InventorySnapshot",
  tableName: "inventory_snapshots",
  properties: {
    scanId: p.uuid().primary(),
    projectId: p.uuid(),
    attempt: p.integer(),
    /** The scan's normalised ref; "" when none. */
    ref: p.string().length(1024).default(""),
    /** The scan's release label (metadata.release, else the document's release); trimmed, null when none. */
    release: p.string().length(255).strictNullable(),
    format: p.string().length(32),
    specVersion: p.string().length(32),
    serialNumber: p.string().length(1024).strictNullable(),
    documentName: p.string().length(1024).strictNullable(),
    tools: p.json<string[]>().defaultRaw("'[]'::jsonb"),
    primaryComponentName: p.string().length(1024).strictNullable(),
    primaryComponentVersion: p.string().length(1024).strictNullable(),
    primaryComponentPurl: p.text().strictNullable(),
    graphRooted: p.boolean().default(false),
    componentCount: p.integer(),
    edgeCount: p.integer(),
    ingestedAt: p.datetime().defaultRaw("now()"),
    /** Source scans: the artefact key of the tree's root package.json (docs/scm.md); null when none was kept. */
    packageJsonKey: p.text().strictNullable(),
  },
  indexes: [
    // The default anchor: a project's newest snapshot.
    { name: "inventory_snapshots_project_ingested", properties: ["projectId", "ingestedAt"] },
    // The release anchor.
    { name: "inventory_snapshots_project_release", properties: ["projectId", "release", "ingestedAt"] },
  ],
  // The projects a transaction touched, for its write fence (ADR 12, store/write-fences.ts).
  triggers: fenceTriggers("inventory_snapshots"),
});

/** A component of a snapshot, de-duplicated by key. The columns later stages fill (severity, ...) start null. */
export const InventoryComponent = defineEntity({
  name: "InventoryComponent",
  tableName: "inventory_components",
  properties: {
    id: p.uuid().primary(),
    scanId: p.uuid(),
    projectId: p.uuid(),
    /** The component's identity across scans and projects: a UUIDv5 of its key. */
    componentId: p.uuid(),
    /** The canonical purl, else `component:<type>/<group>/<name>@<version>`. */
    key: p.text(),
    bomRefs: p.json<string[]>().defaultRaw("'[]'::jsonb"),
    type: p.string().length(64).strictNullable(),
    groupName: p.text().strictNullable(),
    name: p.text(),
    version: p.text().strictNullable(),
    purl: p.text().strictNullable(),
    cpe: p.text().strictNullable(),
    hashes: p.json<{ algorithm: string; value: string }[]>().defaultRaw("'[]'::jsonb"),
    declaredLicense: p.text().strictNullable(),
    concludedLicense: p.text().strictNullable(),
    /** What the list shows and sorts by: the concluded license, else the declared one. */
    license: p.text().strictNullable(),
    licenseIds: p.json<string[]>().defaultRaw("'[]'::jsonb"),
    supplier: p.text().strictNullable(),
    author: p.text().strictNullable(),
    description: p.text().strictNullable(),
    direct: p.boolean().strictNullable(),
    depth: p.integer().strictNullable(),
    dependencyScope: p.string().length(16).$type<"required" | "optional">().strictNullable(),
    /** Filled by the vulnerability stage: the worst severity and its rank (0 none, 1 unknown .. 6 critical) for the sort. */
    severityMax: p.string().length(16).strictNullable(),
    severityRank: p.smallint().default(0),
    licenseCategory: p.string().length(16).strictNullable(),
    currencyState: p.string().length(16).strictNullable(),
    eolState: p.string().length(16).strictNullable(),
    maliciousState: p.string().length(16).strictNullable(),
    /** The enrichment states' detail (RecordComponentStates): null until assessed. Dates are YYYY-MM-DD. */
    eolCycle: p.text().strictNullable(),
    eolDate: p.string().length(10).strictNullable(),
    eolProduct: p.text().strictNullable(),
    eolSource: p.text().strictNullable(),
    currencyLatest: p.text().strictNullable(),
    currencyLatestReleaseDate: p.string().length(10).strictNullable(),
    maliciousId: p.text().strictNullable(),
    maliciousSource: p.text().strictNullable(),
    /** The component as the document wrote it, at most JSONB_ROW_SIZE_LIMIT_BYTES once serialised. */
    rawData: p.json<Record<string, unknown>>().defaultRaw("'{}'::jsonb"),
    createdAt: p.datetime().defaultRaw("now()"),
    updatedAt: p.datetime().defaultRaw("now()"),
  },
  uniques: [{ name: "inventory_components_scan_key", properties: ["scanId", "key"] }],
  indexes: [
    // The sorts (each ends with id, the tie-breaker) and the detail by component id.
    { name: "inventory_components_scan_name", properties: ["scanId", "name", "id"] },
    { name: "inventory_components_scan_license", properties: ["scanId", "license", "name", "id"] },
    { name: "inventory_components_scan_severity", properties: ["scanId", "severityRank", "name", "id"] },
    { name: "inventory_components_scan_component", properties: ["scanId", "componentId"] },
    // The filters.
    { name: "inventory_components_scan_direct", properties: ["scanId", "direct"] },
    { name: "inventory_components_scan_dependency_scope", properties: ["scanId", "dependencyScope"] },
    { name: "inventory_components_scan_severity_max", properties: ["scanId", "severityMax"] },
    { name: "inventory_components_scan_eol_state", properties: ["scanId", "eolState"] },
    { name: "inventory_components_scan_currency_state", properties: ["scanId", "currencyState"] },
    { name: "inventory_components_scan_malicious_state", properties: ["scanId", "maliciousState"] },
    // The gate's component checks (store/findings/gate-facts.ts) read only the few rows that fail them, not the snapshot.
    {
      name: "inventory_components_scan_gate_flagged",
      expression:
        "create index inventory_components_scan_gate_flagged on inventory_components (scan_id) " +
        "where license_category = 'forbidden' or malicious_state = 'flagged'",
    },
  ],
  // Every statement writing a snapshot's components counts in inventory_changes (migration InventoryChanges) and
  // names the projects it touched for the transaction's write fence (ADR 12); the triggers are declared for the
  // schema diff as the raw DDL they were made with (transition tables).
  triggers: [
    ...fenceTriggers("inventory_components"),
    ...statementTriggers("inventory_components", "changed", "changed_components", "inventory_components_changed"),
  ],
  checks: [
    {
      name: "inventory_components_dependency_scope_check",
      expression: "dependency_scope in ('required', 'optional')",
    },
  ],
});

/** A dependency edge of a snapshot between two of its components; from null is the primary component. */
export const InventoryEdge = defineEntity({
  name: "InventoryEdge",
  tableName: "inventory_edges",
  properties: {
    id: p.uuid().primary(),
    scanId: p.uuid(),
    fromComponentId: p.uuid().strictNullable(),
    toComponentId: p.uuid(),
    scope: p.string().length(16).strictNullable(),
  },
  indexes: [
    { name: "inventory_edges_scan_from", properties: ["scanId", "fromComponentId"] },
    { name: "inventory_edges_scan_to", properties: ["scanId", "toComponentId"] },
  ],
});

export type InventorySnapshotRow = InferEntity<typeof InventorySnapshot>;
export type InventoryComponentRow = InferEntity<typeof InventoryComponent>;

/**
 * One statement that wrote a snapshot's components, added by the triggers on inventory_components (migration
 * InventoryChanges): how many a snapshot has is the version its kept list pages are valid for (component-pages.ts).
 */
export const InventoryChange = defineEntity({
  name: "InventoryChange",
  tableName: "inventory_changes",
  properties: {
    id: p.bigint().primary().autoincrement(),
    scanId: p.uuid(),
  },
  indexes: [{ name: "inventory_changes_scan", properties: ["scanId"] }],
});
