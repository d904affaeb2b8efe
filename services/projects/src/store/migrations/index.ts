import type { DatabaseOptions } from "@sca/db";
import { CreateOutboxTable, CreateProcessedEventsTable } from "@sca/kafka";
import { Migration20261128210000_SourceHostApps } from "./Migration20261128210000_SourceHostApps.ts";
import { Migration20261129030000_JudgedGateOutcomes } from "./Migration20261129030000_JudgedGateOutcomes.ts";
import { Migration20261129060000_KeylessSignatures } from "./Migration20261129060000_KeylessSignatures.ts";
import { Migration20261129073000_PreservedPackageJson } from "./Migration20261129073000_PreservedPackageJson.ts";
import { Migration20261130170000_WriteFences } from "./Migration20261130170000_WriteFences.ts";
import { Migration20261124100000_Projects } from "./Migration20261124100000_Projects.ts";
import { Migration20261124120000_Inventory } from "./Migration20261124120000_Inventory.ts";
import { Migration20261124130000_KnownScans } from "./Migration20261124130000_KnownScans.ts";
import { Migration20261124140000_Findings } from "./Migration20261124140000_Findings.ts";
import { Migration20261124150000_DropLicenseCategoryIndex } from "./Migration20261124150000_DropLicenseCategoryIndex.ts";
import { Migration20261125140000_ComponentStates } from "./Migration20261125140000_ComponentStates.ts";
import { Migration20261125170000_FindingSlaBreaches } from "./Migration20261125170000_FindingSlaBreaches.ts";
import { Migration20261126100000_FileLicenses } from "./Migration20261126100000_FileLicenses.ts";
import { Migration20261125200000_TriageConfirmations } from "./Migration20261125200000_TriageConfirmations.ts";
import { Migration20261126140000_GateFlaggedIndex } from "./Migration20261126140000_GateFlaggedIndex.ts";
import { Migration20261127100000_InventoryChanges } from "./Migration20261127100000_InventoryChanges.ts";
import { Migration20261128140000_FindingChanges } from "./Migration20261128140000_FindingChanges.ts";
import { Migration20261128180000_SbomSignatures } from "./Migration20261128180000_SbomSignatures.ts";
import { Migration20261128180000_PortfolioFigures } from "./Migration20261128180000_PortfolioFigures.ts";
import { Migration20261128180000_WebhookSecrets } from "./Migration20261128180000_WebhookSecrets.ts";
import { Migration20261128180000_MaliciousWaivers } from "./Migration20261128180000_MaliciousWaivers.ts";

/** Every migration of the projects schema, oldest first. */
export const migrations: DatabaseOptions["migrations"] = [
  Migration20261124100000_Projects,
  // The transactional outbox of projects' events (domain, audit).
  CreateOutboxTable,
  Migration20261124120000_Inventory,
  // Scan events feed known_scans (the scan-fed project fields), each applied once.
  Migration20261124130000_KnownScans,
  CreateProcessedEventsTable,
  // Vulnerability findings and their triage (docs/findings.md).
  Migration20261124140000_Findings,
  Migration20261124150000_DropLicenseCategoryIndex,
  // The enrichment states' detail (docs/inventory.md, "Component states").
  Migration20261125140000_ComponentStates,
  Migration20261125170000_FindingSlaBreaches,
  // Statuses a second person confirms (docs/findings.md).
  Migration20261125200000_TriageConfirmations,
  // First-party license detections of the scancode stage (docs/scancode.md).
  Migration20261126100000_FileLicenses,
  // The gate's forbidden and malicious components (docs/gate.md).
  Migration20261126140000_GateFlaggedIndex,
  // Each write of a snapshot's components counted, for the kept list pages (docs/inventory.md).
  Migration20261127100000_InventoryChanges,
  // Each write of a snapshot's findings, a project's triage or the vulnerabilities counted, for the kept finding
  // orders (docs/findings.md).
  Migration20261128140000_FindingChanges,
  // Each succeeded scan's signed SBOM export and provenance (docs/signing.md).
  Migration20261128180000_SbomSignatures,
  // The dashboards' kept figures, fixes and daily metrics (docs/dashboards.md).
  Migration20261128180000_PortfolioFigures,
  // Repository-webhook secrets (docs/scm.md).
  Migration20261128180000_WebhookSecrets,
  // Malicious-package waivers (docs/enrichment-feeds.md, "Waivers").
  Migration20261128180000_MaliciousWaivers,
  // Source-host app credentials and remediation pull requests (docs/scm.md).
  Migration20261128210000_SourceHostApps,
  // The dashboards' gate outcomes judged by each team's policy (docs/dashboards.md).
  Migration20261129030000_JudgedGateOutcomes,
  // Keyless SBOM signatures' certificates (docs/signing.md, "Keyless").
  Migration20261129060000_KeylessSignatures,
  // A source scan's preserved root package.json (docs/scm.md, "npm remediation dry-run").
  Migration20261129073000_PreservedPackageJson,
  // The triggers naming the projects a transaction touched, for the gateway's kept pages (ADR 12).
  Migration20261130170000_WriteFences,
];
