// A scan's matches (docs/findings.md, "Recording verdicts"): its findings, the package version of each matched
// component (snapshot_packages) and the record that it was matched (scan_matches). Raw SQL (ADR 5) for the findings
// and package versions: set-based statements over a JSON array of rows (jsonb_to_recordset), never row by row.
import { raw, type EntityManager } from "@mikro-orm/postgresql";
import { rawStatement, SNAPSHOT } from "@sca/db";
import { uuidv7 } from "@sca/kafka";
import type { PackageVersion } from "../../domain/package-version.ts";
import { deleteBatched } from "../batched-delete.ts";
import { FindingChange, ScanMatch, SnapshotPackage } from "../entities/findings.ts";
import { openTriage } from "./triage.ts";

/** One finding a verdict gives a component. */
export interface PlannedFinding {
  componentRowId: string;
  componentId: string;
  componentKey: string;
  ecosystem: string;
  vulnerabilityId: string;
  fixedVersions: string[];
}

/** The scan's match record, when its verdicts were recorded. */
export async function recordedMatch(
  em: EntityManager,
  scanId: string,
): Promise<{ databaseVersion: string; findingCount: number } | null> {
  const row = await em.findOne(ScanMatch, { scanId }, { ...SNAPSHOT, fields: ["databaseVersion", "findingCount"] });
  return row ? { databaseVersion: row.databaseVersion, findingCount: row.findingCount } : null;
}

/**
 * Replaces the scan's findings with `planned` (a finding kept keeps its id and detected_at), its components'
 * package versions with `packages`, and marks the scan matched. Triage rows of new (component, vulnerability)
 * pairs start in_triage. The components' severity follows (inventory/matching.ts recomputeSeverity).
 */
export async function writeScanFindings(
  em: EntityManager,
  scan: { scanId: string; projectId: string; databaseVersion: string },
  packages: { componentRowId: string; pkg: PackageVersion }[],
  planned: PlannedFinding[],
): Promise<void> {
  await em.nativeDelete(SnapshotPackage, { scanId: scan.scanId });
  if (packages.length)
    await rawStatement(
      em,
      `insert into snapshot_packages (component_row_id, scan_id, project_id, ecosystem, name, version)
       select component_row_id, ?, ?, ecosystem, name, version
       from jsonb_to_recordset(?::jsonb) as x(component_row_id uuid, ecosystem text, name text, version text)`,
      [
        scan.scanId,
        scan.projectId,
        JSON.stringify(packages.map((p) => ({ component_row_id: p.componentRowId, ...p.pkg }))),
      ],
    );
  const rows = JSON.stringify(
    planned.map((f) => ({
      id: uuidv7(),
      component_row_id: f.componentRowId,
      component_id: f.componentId,
      component_key: f.componentKey,
      ecosystem: f.ecosystem,
      vulnerability_id: f.vulnerabilityId,
      fixed_versions: f.fixedVersions,
    })),
  );
  await rawStatement(
    em,
    `delete from vulnerability_findings f where f.scan_id = ? and not exists (
       select 1 from jsonb_to_recordset(?::jsonb) as x(component_row_id uuid, vulnerability_id text)
       where x.component_row_id = f.component_row_id and x.vulnerability_id = f.vulnerability_id)`,
    [scan.scanId, rows],
  );
  await rawStatement(
    em,
    `insert into vulnerability_findings as f (id, project_id, scan_id, component_row_id, component_id, component_key,
       ecosystem, vulnerability_id, fixed_versions)
     select id, ?, ?, component_row_id, component_id, component_key, ecosystem, vulnerability_id, fixed_versions
     from jsonb_to_recordset(?::jsonb) as x(id uuid, component_row_id uuid, component_id uuid, component_key text,
       ecosystem text, vulnerability_id text, fixed_versions jsonb)
     on conflict (component_row_id, vulnerability_id) do update set fixed_versions = excluded.fixed_versions,
       removed_at = null`,
    [scan.projectId, scan.scanId, rows],
  );
  await openTriage(em, scan.projectId, planned);
  await em
    .createQueryBuilder(ScanMatch)
    .insert({
      scanId: scan.scanId,
      projectId: scan.projectId,
      databaseVersion: scan.databaseVersion,
      findingCount: planned.length,
      recordedAt: raw("now()"),
    })
    .onConflict("scanId")
    .merge(["databaseVersion", "findingCount", "recordedAt"])
    .execute("run");
}

/**
 * Deletes the findings, matched package versions and match records of these (deleted) scans, in bounded statements
 * inside the caller's transaction, and their counted writes (finding_changes, the last: the deletions add to it). The
 * triage, keyed by the project's component identity, stays for later scans.
 */
export async function deleteFindingsOfScans(
  em: EntityManager,
  scanIds: readonly string[],
  signal: AbortSignal,
): Promise<void> {
  await deleteBatched(em, "vulnerability_findings", "id", scanIds, signal);
  await deleteBatched(em, "snapshot_packages", "component_row_id", scanIds, signal);
  await em.nativeDelete(ScanMatch, { scanId: { $in: [...scanIds] } });
  await em.nativeDelete(FindingChange, { scanId: { $in: [...scanIds] } });
}
