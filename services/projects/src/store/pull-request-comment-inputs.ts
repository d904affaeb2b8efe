// What a pull-request comment reads of two snapshots: their open findings with package and severity, and their
// forbidden-license components (vulnerability_findings, inventory_components, vulnerabilities, inventory_snapshots).
import { QueryOrder, type EntityManager } from "@mikro-orm/postgresql";
import { SNAPSHOT } from "@sca/db";
import type { LicensedComponent, ScanFinding } from "../domain/pull-request-comments.ts";
import { Vulnerability, VulnerabilityFinding } from "./entities/findings.ts";
import { InventoryComponent, InventorySnapshot } from "./entities/inventory.ts";

/** The newest snapshot of the project on one of `refs`, other than `exceptScanId`. */
export async function newestSnapshotOnRefs(
  em: EntityManager,
  projectId: string,
  refs: string[],
  exceptScanId: string,
): Promise<string | null> {
  const row = await em.findOne(
    InventorySnapshot,
    { projectId, ref: { $in: refs }, scanId: { $ne: exceptScanId } },
    { ...SNAPSHOT, fields: ["scanId"], orderBy: { ingestedAt: QueryOrder.DESC, scanId: QueryOrder.DESC } },
  );
  return row?.scanId ?? null;
}

export async function scanFindings(em: EntityManager, scanId: string): Promise<ScanFinding[]> {
  const findings = await em.find(
    VulnerabilityFinding,
    { scanId, removedAt: null },
    { ...SNAPSHOT, fields: ["componentRowId", "vulnerabilityId"] },
  );
  if (findings.length === 0) return [];
  const components = await em.find(
    InventoryComponent,
    { id: { $in: [...new Set(findings.map((f) => f.componentRowId))] } },
    { ...SNAPSHOT, fields: ["id", "name", "groupName", "version"] },
  );
  const vulnerabilities = await em.find(
    Vulnerability,
    { id: { $in: [...new Set(findings.map((f) => f.vulnerabilityId))] } },
    { ...SNAPSHOT, fields: ["id", "severity"] },
  );
  const byRow = new Map(components.map((c) => [c.id, c]));
  const severity = new Map(vulnerabilities.map((v) => [v.id, v.severity]));
  return findings.flatMap((f) => {
    const c = byRow.get(f.componentRowId);
    if (!c) return [];
    return [
      {
        vulnerabilityId: f.vulnerabilityId,
        severity: severity.get(f.vulnerabilityId) ?? "unknown",
        package: c.groupName ? `${c.groupName}/${c.name}` : c.name,
        version: c.version ?? "",
      },
    ];
  });
}

export async function forbiddenLicenseComponents(em: EntityManager, scanId: string): Promise<LicensedComponent[]> {
  const rows = await em.find(
    InventoryComponent,
    { scanId, licenseCategory: "forbidden" },
    { ...SNAPSHOT, fields: ["name", "groupName", "version", "license"], orderBy: { name: QueryOrder.ASC } },
  );
  return rows.map((c) => ({
    package: c.groupName ? `${c.groupName}/${c.name}` : c.name,
    version: c.version ?? "",
    license: c.license ?? "",
    category: "forbidden",
  }));
}
