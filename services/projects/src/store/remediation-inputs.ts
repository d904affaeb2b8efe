// What npm remediation reads of a snapshot: its npm packages with open findings and their fixed versions
// (vulnerability_findings joined to snapshot_packages by component row).
import type { EntityManager } from "@mikro-orm/postgresql";
import { SNAPSHOT } from "@sca/db";
import type { VulnerablePackage } from "../domain/npm-remediation.ts";
import { SnapshotPackage, VulnerabilityFinding } from "./entities/findings.ts";

export async function vulnerableNpmPackages(em: EntityManager, scanId: string): Promise<VulnerablePackage[]> {
  const findings = await em.find(
    VulnerabilityFinding,
    { scanId, ecosystem: "npm", removedAt: null },
    { ...SNAPSHOT, fields: ["componentRowId", "fixedVersions"] },
  );
  if (findings.length === 0) return [];
  const packages = await em.find(
    SnapshotPackage,
    { componentRowId: { $in: [...new Set(findings.map((f) => f.componentRowId))] } },
    { ...SNAPSHOT, fields: ["componentRowId", "name", "version"] },
  );
  const byRow = new Map(packages.map((p) => [p.componentRowId, p]));
  const grouped = new Map<string, { name: string; version: string; fixedVersions: string[][] }>();
  for (const f of findings) {
    const pkg = byRow.get(f.componentRowId);
    if (!pkg) continue;
    const key = `${pkg.name}@${pkg.version}`;
    const held = grouped.get(key) ?? { name: pkg.name, version: pkg.version, fixedVersions: [] };
    held.fixedVersions.push(f.fixedVersions);
    grouped.set(key, held);
  }
  return [...grouped.values()];
}
