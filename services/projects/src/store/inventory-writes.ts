// Writing a scan's inventory: the one module that writes inventory_snapshots, inventory_components and
// inventory_edges. One transaction on one connection (@sca/db bulkTransaction), one ingestion per project at a
// time (an advisory lock on the project), components and edges streamed in with COPY. Deleted scans' snapshots go
// in bounded statements under the same lock.
import type { EntityManager, MikroORM } from "@mikro-orm/postgresql";
import { bulkTransaction, column, rawQuery, rawStatement, SNAPSHOT } from "@sca/db";
import type { InventoryContents } from "../domain/inventory-artefact.ts";
import { InventorySnapshot } from "./entities/inventory.ts";
import { recountInventorySummaryIn } from "./inventory-summary.ts";

export interface SnapshotCounts {
  componentCount: number;
  edgeCount: number;
}

/** The counts of the scan's snapshot when it was ingested already. */
export async function ingestedSnapshot(orm: MikroORM, scanId: string): Promise<SnapshotCounts | null> {
  const row = await orm.em
    .fork()
    .findOne(InventorySnapshot, { scanId }, { ...SNAPSHOT, fields: ["componentCount", "edgeCount"] });
  return row ? { componentCount: row.componentCount, edgeCount: row.edgeCount } : null;
}

export interface NewSnapshot {
  scanId: string;
  projectId: string;
  attempt: number;
  ref: string;
  release: string | null;
}

export type IngestOutcome =
  | { kind: "ingested"; counts: SnapshotCounts }
  | { kind: "already_ingested"; counts: SnapshotCounts }
  | { kind: "no_project" };

const COMPONENT_COLUMNS = [
  "id",
  "scan_id",
  "project_id",
  "component_id",
  "key",
  "bom_refs",
  "type",
  "group_name",
  "name",
  "version",
  "purl",
  "cpe",
  "hashes",
  "declared_license",
  "concluded_license",
  "license",
  "license_ids",
  "supplier",
  "author",
  "description",
  "direct",
  "depth",
  "dependency_scope",
  "raw_data",
] as const;

/**
 * Writes the snapshot, its components and edges, all or nothing. Under the project's advisory lock the scan is
 * looked up again, so two ingestions of one scan write it once.
 */
export async function writeInventory(
  orm: MikroORM,
  s: NewSnapshot,
  contents: InventoryContents,
  /** The outbox row announcing the snapshot, committed with it. */
  announcement: { sql: string; params: unknown[] },
): Promise<IngestOutcome> {
  return bulkTransaction(orm, async (tx) => {
    await tx.statement("select pg_advisory_xact_lock(hashtext('projects.inventory'), hashtext($1))", [s.projectId]);
    const [done] = await tx.query(
      "select component_count, edge_count from inventory_snapshots where scan_id = $1",
      [s.scanId],
      { componentCount: column.integer, edgeCount: column.integer },
    );
    if (done) return { kind: "already_ingested", counts: done };
    const [project] = await tx.query("select id from projects where id = $1", [s.projectId], { id: column.text });
    if (!project) return { kind: "no_project" };

    const d = contents.document;
    const primary = d.primaryComponent;
    const counts = { componentCount: contents.components.length, edgeCount: contents.edges.length };
    await tx.statement(
      `insert into inventory_snapshots (scan_id, project_id, attempt, ref, release, format, spec_version,
         serial_number, document_name, tools, primary_component_name, primary_component_version,
         primary_component_purl, graph_rooted, component_count, edge_count)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb, $11, $12, $13, $14, $15, $16)`,
      [
        s.scanId,
        s.projectId,
        s.attempt,
        s.ref,
        s.release,
        d.format,
        d.specVersion,
        d.serialNumber ?? null,
        d.name ?? null,
        JSON.stringify(d.tools),
        primary?.name ?? null,
        primary?.version ?? null,
        primary?.purl ?? null,
        d.graphRooted,
        counts.componentCount,
        counts.edgeCount,
      ],
    );
    await tx.copyRows(
      "inventory_components",
      COMPONENT_COLUMNS,
      contents.components.map((c) => [
        c.id,
        s.scanId,
        s.projectId,
        c.componentId,
        c.key,
        c.bomRefs,
        c.type,
        c.groupName,
        c.name,
        c.version,
        c.purl,
        c.cpe,
        c.hashes,
        c.declaredLicense,
        c.concludedLicense,
        c.license,
        c.licenseIds,
        c.supplier,
        c.author,
        c.description,
        c.direct,
        c.depth,
        c.dependencyScope,
        c.rawData,
      ]),
    );
    await tx.copyRows(
      "inventory_edges",
      ["id", "scan_id", "from_component_id", "to_component_id", "scope"],
      contents.edges.map((e) => [e.id, s.scanId, e.fromComponentId, e.toComponentId, e.scope]),
    );
    // The new snapshot is the project's newest: its summaries follow in the same transaction.
    await recountInventorySummaryIn(tx, s.projectId);
    await tx.statement(announcement.sql, announcement.params);
    return { kind: "ingested", counts };
  });
}

/**
 * Labels the scan's snapshot with the scan's release as the scan-orchestrator settled it on success (metadata.release,
 * else the document's): the job does not carry metadata, so ingestion only knew the document's.
 */
export async function labelSnapshot(
  em: EntityManager,
  projectId: string,
  scanId: string,
  release: string | null,
): Promise<void> {
  await em.nativeUpdate(InventorySnapshot, { scanId, projectId }, { release });
}

/** Rows one delete statement removes at most: each statement stays short, whatever a snapshot holds. */
export const DELETE_BATCH_ROWS = 5000;

/** Takes the project's inventory lock (the one ingestion holds) until the transaction `em` runs ends. */
export async function lockProjectInventory(em: EntityManager, projectId: string): Promise<void> {
  await rawQuery(em, "select pg_advisory_xact_lock(hashtext('projects.inventory'), hashtext(?))", [projectId]);
}

/**
 * Deletes the project's snapshots of these scans with their edges, components and findings, in statements of at most
 * DELETE_BATCH_ROWS rows, inside the caller's transaction (readers see the whole snapshot or none of it). A scan of
 * another project is left alone. Checks `signal` between statements. Answers the snapshots deleted.
 */
export async function deleteSnapshots(
  em: EntityManager,
  projectId: string,
  scanIds: readonly string[],
  signal: AbortSignal,
): Promise<number> {
  if (scanIds.length === 0) return 0;
  // A PostgreSQL array literal: the ids are UUIDs (checked by the caller), so nothing in them needs quoting.
  const arrayOf = (ids: readonly string[]) => `{${ids.join(",")}}`;
  const rows = await rawQuery(
    em,
    "select scan_id from inventory_snapshots where project_id = ? and scan_id = any(?::uuid[])",
    [projectId, arrayOf(scanIds)],
    { scanId: column.text },
  );
  if (rows.length === 0) return 0;
  const owned = arrayOf(rows.map((r) => r.scanId));
  // The snapshot's findings and matched package versions go with it (docs/findings.md); the triage, keyed by the
  // project's component identity, stays for later scans.
  const tables: [string, string][] = [
    ["vulnerability_findings", "id"],
    ["snapshot_packages", "component_row_id"],
    ["inventory_edges", "id"],
    ["inventory_components", "id"],
  ];
  for (const [table, key] of tables) {
    for (;;) {
      signal.throwIfAborted();
      const deleted = await rawStatement(
        em,
        `delete from ${table} where ${key} in (select ${key} from ${table} where scan_id = any(?::uuid[]) limit ${DELETE_BATCH_ROWS})`,
        [owned],
      );
      if (deleted < DELETE_BATCH_ROWS) break;
    }
  }
  await rawStatement(em, "delete from scan_matches where scan_id = any(?::uuid[])", [owned]);
  await rawStatement(em, "delete from inventory_changes where scan_id = any(?::uuid[])", [owned]);
  return rawStatement(em, "delete from inventory_snapshots where scan_id = any(?::uuid[])", [owned]);
}

/** The scan ids of the project's snapshots. */
export async function snapshotScanIds(em: EntityManager, projectId: string): Promise<string[]> {
  const rows = await em.find(InventorySnapshot, { projectId }, { ...SNAPSHOT, fields: ["scanId"] });
  return rows.map((r) => r.scanId);
}

/** What judging a snapshot's licenses needs of each of its components. */
export async function snapshotLicenses(
  em: EntityManager,
  scanId: string,
): Promise<{ id: string; license: string | null; purl: string | null; licenseCategory: string | null }[]> {
  return rawQuery(
    em,
    "select id, license, purl, license_category from inventory_components where scan_id = ?",
    [scanId],
    {
      id: column.text,
      license: column.text.nullable,
      purl: column.text.nullable,
      licenseCategory: column.text.nullable,
    },
  );
}

/** Sets one license_category on the snapshot's components of these ids: one statement per category. */
export async function setLicenseCategory(
  em: EntityManager,
  scanId: string,
  category: string,
  ids: readonly string[],
): Promise<number> {
  if (ids.length === 0) return 0;
  return rawStatement(
    em,
    "update inventory_components set license_category = ? where scan_id = ? and id = any(?::uuid[])",
    [category, scanId, `{${ids.join(",")}}`],
  );
}
