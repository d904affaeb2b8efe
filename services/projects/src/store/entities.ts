import type { DatabaseOptions } from "@sca/db";
import { InventoryChange, InventoryComponent, InventoryEdge, InventorySnapshot } from "./entities/inventory.ts";
import {
  ApprovalRequiredStatuses,
  FindingChange,
  FindingTriage,
  PackageVulnerability,
  ScanMatch,
  SnapshotPackage,
  Vulnerability,
  VulnerabilityAlias,
  VulnerabilityFinding,
} from "./entities/findings.ts";
import { FileLicenseDetectionRecord, FileLicenseScan } from "./entities/file-licenses.ts";
import { SbomSignature } from "./entities/sbom-signature.ts";
import { KnownScan } from "./entities/known-scan.ts";
import { DailyMetric, FindingFix, ProjectFigures } from "./entities/portfolio.ts";
import { MaliciousWaiver } from "./entities/malicious-waiver.ts";
import { Project } from "./entities/project.ts";
import { WebhookSecret } from "./entities/webhook-secret.ts";
import { AppCredential, AppInstallation, RemediationPullRequest } from "./entities/source-host.ts";

/** The tables of the projects schema. */
export const entities: DatabaseOptions["entities"] = [
  Project,
  InventorySnapshot,
  InventoryComponent,
  InventoryEdge,
  InventoryChange,
  KnownScan,
  Vulnerability,
  VulnerabilityAlias,
  PackageVulnerability,
  SnapshotPackage,
  ScanMatch,
  VulnerabilityFinding,
  FindingTriage,
  FindingChange,
  ApprovalRequiredStatuses,
  FileLicenseScan,
  FileLicenseDetectionRecord,
  SbomSignature,
  ProjectFigures,
  FindingFix,
  DailyMetric,
  WebhookSecret,
  MaliciousWaiver,
  AppCredential,
  AppInstallation,
  RemediationPullRequest,
];
