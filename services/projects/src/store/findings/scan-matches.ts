// A scan's matches (docs/findings.md, "Recording verdicts"): its findings, the package version of each matched
// component (snapshot_packages) and the record that it was matched (scan_matches). Raw SQL (ADR 5) for the findings
// and package versions: set-based statements over a JSON array of rows (jsonb_to_recordset), never row by row, a
// bounded batch each, so memory does not grow with the SBOM.
import { raw, type EntityManager } from "@mikro-orm/postgresql";
import { boundQuery, boundStatement, column, Pipelined, rawQuery, SNAPSHOT } from "@sca/db";
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

/** Rows one statement writes at most: each statement's JSON stays a few MB, whatever the scan holds. */
const WRITE_BATCH_ROWS = 5000;

/** The findings and package versions planned for some of the snapshot's components (rows named by id). */
export interface PlannedPage {
  componentRowIds: string[];
  packages: { componentRowId: string; pkg: PackageVersion }[];
  findings: PlannedFinding[];
}

/**
 * Replaces the scan's findings with those planned, a page of components at a time (a finding kept keeps its id and
 * detected_at), its components' package versions with the pages', and marks the scan matched; answers the findings
 * written. Triage rows of new (component, vulnerability) pairs start in_triage. The components' severity follows
 * (inventory/matching.ts recomputeSeverity).
 */
export async function writeScanFindings(
  em: EntityManager,
  scan: { scanId: string; projectId: string; databaseVersion: string },
  pages: AsyncIterable<PlannedPage>,
): Promise<number> {
  await em.nativeDelete(SnapshotPackage, { scanId: scan.scanId });
  // A scan's first recording (the usual case) has no finding to drop.
  const [{ replacing }] = (await rawQuery(
    em,
    "select exists (select 1 from vulnerability_findings where scan_id = ?) as replacing",
    [scan.scanId],
    { replacing: column.boolean },
  )) as [{ replacing: boolean }];
  // Pipelined (@sca/db): each statement's JSON is made while PostgreSQL works on the ones before (at most three
  // unfinished), and the next page is read ahead of this one's writes (issue 24: the recording had projects and
  // PostgreSQL wait for each other in turn, one core busy of two).
  const writes = new Pipelined();
  let count = 0;
  let failure: { reason: unknown } | undefined;
  try {
    const reading = pages[Symbol.asyncIterator]();
    for (let next: Promise<IteratorResult<PlannedPage>> = reading.next(); ;) {
      const step = await next;
      if (step.done) break;
      const page = step.value;
      next = reading.next();
      for (let i = 0; i < page.packages.length; i += WRITE_BATCH_ROWS)
        await writes.send(insertSnapshotPackages(em, scan, page.packages.slice(i, i + WRITE_BATCH_ROWS)));
      if (replacing) await writes.send(dropStaleFindings(em, page));
      for (let i = 0; i < page.findings.length; i += WRITE_BATCH_ROWS) {
        const batch = page.findings.slice(i, i + WRITE_BATCH_ROWS);
        await writes.send(upsertFindings(em, scan, batch));
        await writes.send(
          openTriage(
            em,
            batch.map((f) => ({ ...f, projectId: scan.projectId })),
          ),
        );
      }
      count += page.findings.length;
    }
  } catch (err) {
    failure = { reason: err };
  }
  await writes.settled(failure);
  await em
    .createQueryBuilder(ScanMatch)
    .insert({
      scanId: scan.scanId,
      projectId: scan.projectId,
      databaseVersion: scan.databaseVersion,
      findingCount: count,
      recordedAt: raw("now()"),
    })
    .onConflict("scanId")
    .merge(["databaseVersion", "findingCount", "recordedAt"])
    .execute("run");
  return count;
}

/**
 * Gives the planner statistics of the findings and triage a recording wrote, inside the transaction that makes them
 * visible, when they are more than a tenth of what it believes the findings table holds (autovacuum's own threshold,
 * which autovacuum acts on only a minute or so later). A young table's first large scan was otherwise estimated at a
 * few rows: the finding list's first order of a 10,000-component scan (12,037 findings) was planned as nested loops
 * and ran for minutes on a loaded machine (issue 24). ANALYZE counts the transaction's own new rows.
 */
export async function analyzeWhenStale(em: EntityManager, written: number): Promise<void> {
  const [believed] = await boundQuery(
    em,
    "select greatest(reltuples, 0)::float8 as tuples from pg_class where oid = 'vulnerability_findings'::regclass",
    [],
    { tuples: column.number },
  );
  if (written <= 50 + 0.1 * (believed?.tuples ?? 0)) return;
  await boundStatement(em, "analyze vulnerability_findings, finding_triage");
}

async function insertSnapshotPackages(
  em: EntityManager,
  scan: { scanId: string; projectId: string },
  packages: PlannedPage["packages"],
): Promise<void> {
  if (packages.length === 0) return;
  await boundStatement(
    em,
    `insert into snapshot_packages (component_row_id, scan_id, project_id, ecosystem, name, version)
     select component_row_id, $1::uuid, $2::uuid, ecosystem, name, version
     from jsonb_to_recordset($3::jsonb) as x(component_row_id uuid, ecosystem text, name text, version text)`,
    [
      scan.scanId,
      scan.projectId,
      JSON.stringify(packages.map((p) => ({ component_row_id: p.componentRowId, ...p.pkg }))),
    ],
  );
}

/** Deletes the findings of the page's components that its plan no longer has (a re-recording's). */
async function dropStaleFindings(em: EntityManager, page: PlannedPage): Promise<void> {
  if (page.componentRowIds.length === 0) return;
  await boundStatement(
    em,
    `delete from vulnerability_findings f
     where f.component_row_id = any($1::uuid[]) and not exists (
       select 1 from jsonb_to_recordset($2::jsonb) as x(component_row_id uuid, vulnerability_id text)
       where x.component_row_id = f.component_row_id and x.vulnerability_id = f.vulnerability_id)`,
    [
      `{${page.componentRowIds.join(",")}}`,
      JSON.stringify(
        page.findings.map((f) => ({ component_row_id: f.componentRowId, vulnerability_id: f.vulnerabilityId })),
      ),
    ],
  );
}

async function upsertFindings(
  em: EntityManager,
  scan: { scanId: string; projectId: string },
  findings: PlannedFinding[],
): Promise<void> {
  if (findings.length === 0) return;
  await boundStatement(
    em,
    `insert into vulnerability_findings as f (id, project_id, scan_id, component_row_id, component_id, component_key,
       ecosystem, vulnerability_id, fixed_versions)
     select id, $1::uuid, $2::uuid, component_row_id, component_id, component_key, ecosystem, vulnerability_id,
       fixed_versions
     from jsonb_to_recordset($3::jsonb) as x(id uuid, component_row_id uuid, component_id uuid, component_key text,
       ecosystem text, vulnerability_id text, fixed_versions jsonb)
     on conflict (component_row_id, vulnerability_id) do update set fixed_versions = excluded.fixed_versions,
       removed_at = null`,
    [
      scan.projectId,
      scan.scanId,
      JSON.stringify(
        findings.map((f) => ({
          id: uuidv7(),
          component_row_id: f.componentRowId,
          component_id: f.componentId,
          component_key: f.componentKey,
          ecosystem: f.ecosystem,
          vulnerability_id: f.vulnerabilityId,
          fixed_versions: f.fixedVersions,
        })),
      ),
    ],
  );
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
