// Writing a scan's inventory and deleting deleted scans' snapshots. Raw SQL (ADR 5) for bulk work: one transaction
// on one connection (@sca/db bulkTransaction), one ingestion per project at a time (an advisory lock on the project),
// the components and edges streamed in with COPY; deletions in bounded statements under the same lock.
import type { EntityManager, MikroORM } from "@mikro-orm/postgresql";
import { bulkTransaction, column, JsonText, rawQuery, rawStatement, SNAPSHOT } from "@sca/db";
import type { InventoryContents } from "../../domain/inventory-artefact.ts";
import { deleteBatched } from "../batched-delete.ts";
import { deleteFindingsOfScans } from "../findings/scan-matches.ts";
import { InventorySnapshot } from "../entities/inventory.ts";
import { projectExistsIn, recountInventorySummaryIn } from "../projects.ts";
import type { SnapshotCounts } from "./snapshots.ts";

export interface NewSnapshot {
  scanId: string;
  projectId: string;
  attempt: number;
  ref: string;
  release: string | null;
  /** The artefact key of the scan's preserved package.json; null when none. */
  packageJsonKey: string | null;
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
  "license_category",
  "supplier",
  "author",
  "description",
  "direct",
  "depth",
  "dependency_scope",
  "raw_data",
] as const;

function* mapped<T, R>(items: Iterable<T>, f: (item: T) => R): Generator<R> {
  for (const item of items) yield f(item);
}

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
    if (!(await projectExistsIn(tx, s.projectId))) return { kind: "no_project" };

    const d = contents.document;
    const primary = d.primaryComponent;
    const counts = { componentCount: contents.components.length, edgeCount: contents.edges.length };
    await tx.statement(
      `insert into inventory_snapshots (scan_id, project_id, attempt, ref, release, format, spec_version,
         serial_number, document_name, tools, primary_component_name, primary_component_version,
         primary_component_purl, graph_rooted, component_count, edge_count, package_json_key)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb, $11, $12, $13, $14, $15, $16, $17)`,
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
        s.packageJsonKey,
      ],
    );
    // Rows made as COPY takes them: no second array of the whole snapshot.
    await tx.copyRows(
      "inventory_components",
      COMPONENT_COLUMNS,
      mapped(contents.components, (c) => [
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
        c.licenseCategory,
        c.supplier,
        c.author,
        c.description,
        c.direct,
        c.depth,
        c.dependencyScope,
        new JsonText(c.rawData),
      ]),
    );
    await tx.copyRows(
      "inventory_edges",
      ["id", "scan_id", "from_component_id", "to_component_id", "scope"],
      mapped(contents.edges, (e) => [e.id, s.scanId, e.fromComponentId, e.toComponentId, e.scope]),
    );
    // The new snapshot is the project's newest: its summaries follow in the same transaction.
    await recountInventorySummaryIn(tx, s.projectId);
    await tx.statement(announcement.sql, announcement.params);
    return { kind: "ingested", counts };
  });
}

/** Takes the project's inventory lock (the one ingestion holds) until the transaction `em` runs ends. */
export async function lockProjectInventory(em: EntityManager, projectId: string): Promise<void> {
  await rawQuery(em, "select pg_advisory_xact_lock(hashtext('projects.inventory'), hashtext(?))", [projectId]);
}

/**
 * Deletes the project's snapshots of these scans with their edges, components and findings, in bounded statements,
 * inside the caller's transaction (readers see the whole snapshot or none of it). A scan of another project is left
 * alone. Checks `signal` between statements. Answers the snapshots deleted.
 */
export async function deleteSnapshots(
  em: EntityManager,
  projectId: string,
  scanIds: readonly string[],
  signal: AbortSignal,
): Promise<number> {
  if (scanIds.length === 0) return 0;
  const rows = await em.find(
    InventorySnapshot,
    { projectId, scanId: { $in: [...scanIds] } },
    { ...SNAPSHOT, fields: ["scanId"] },
  );
  if (rows.length === 0) return 0;
  const owned = rows.map((r) => r.scanId);
  // The snapshot's findings and matched package versions go with it (docs/findings.md).
  await deleteFindingsOfScans(em, owned, signal);
  await deleteBatched(em, "inventory_edges", "id", owned, signal);
  await deleteBatched(em, "inventory_components", "id", owned, signal);
  // A PostgreSQL array literal: the ids are UUIDs, so nothing in them needs quoting.
  const array = `{${owned.join(",")}}`;
  await rawStatement(em, "delete from inventory_changes where scan_id = any(?::uuid[])", [array]);
  await rawStatement(em, "delete from sbom_signatures where scan_id = any(?::uuid[])", [array]);
  return rawStatement(em, "delete from inventory_snapshots where scan_id = any(?::uuid[])", [array]);
}
