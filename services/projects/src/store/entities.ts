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
import { KnownScan } from "./entities/known-scan.ts";
import { MaliciousWaiver } from "./entities/malicious-waiver.ts";
import { Project } from "./entities/project.ts";

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
  MaliciousWaiver,
];
