// inventory_snapshots: which snapshot a read is anchored to (docs/inventory.md, "Release anchors") and what it tells
// of itself. Reads of one snapshot go through the entity; raw SQL only for the prepared read every component list
// and gate verdict starts with (ADR 5).
import { QueryOrder, type EntityManager } from "@mikro-orm/postgresql";
import { column, preparedQuery, SNAPSHOT } from "@sca/db";
import { findingWritesSql } from "../findings/relations.ts";
import { PROJECT_ACCESS_ROWS } from "../projects.ts";
import { InventorySnapshot, type InventorySnapshotRow } from "../entities/inventory.ts";

/** A snapshot the list reads: its scan and how many components it holds (the total of an unfiltered list). */
export interface SnapshotRef {
  scanId: string;
  componentCount: number;
}

export interface ProjectAndSnapshot {
  project: { id: string; teamId: string; organizationId: string | null; visibility: "team" | "organization" };
  /**
   * With when it was ingested (the scan's success as projects knows it): the gate's `scanned_at`; and how many
   * counted writes what was asked for derives from (SnapshotWrites), the version a kept read is valid for.
   */
  snapshot: (SnapshotRef & { ingestedAt: Date; changes: number }) | null;
}

/**
 * What a snapshot's kept reads derive from (ADR 7): its components (inventory_changes), or its finding list, which
 * also shows its components (findings/relations.ts).
 */
export type SnapshotWrites = "components" | "findings";

const componentWritesSql = (scanId: string) => `(select count(*) from inventory_changes c where c.scan_id = ${scanId})`;
const findingListWritesSql = (scanId: string, projectId: string) =>
  `${componentWritesSql(scanId)} + ${findingWritesSql(scanId, projectId)}`;

const WRITES: Record<SnapshotWrites, { statement: string; sql: string }> = {
  components: {
    statement: "projects.project-with-newest-snapshot.v3",
    sql: componentWritesSql("s.scan_id"),
  },
  findings: {
    statement: "projects.project-with-newest-findings.v1",
    sql: findingListWritesSql("s.scan_id", "p.id"),
  },
};

/**
 * The project's access scope and its newest snapshot with its count of `writes`, in one query; null when there is no
 * such project. Prepared: every component and finding list and gate verdict starts with it.
 */
export async function projectWithNewestSnapshot(
  em: EntityManager,
  projectId: string,
  writes: SnapshotWrites = "components",
): Promise<ProjectAndSnapshot | null> {
  const [row] = await preparedQuery(
    em,
    WRITES[writes].statement,
    `select p.id, p.team_id, p.organization_id, p.visibility, s.scan_id, s.component_count, s.ingested_at,
            ${WRITES[writes].sql}::int as changes
       from (${PROJECT_ACCESS_ROWS}) p
       left join lateral (
         select scan_id, component_count, ingested_at from inventory_snapshots
          where project_id = p.id order by ingested_at desc, scan_id desc limit 1
       ) s on true
      where p.id = $1::uuid`,
    [projectId],
    {
      id: column.text,
      teamId: column.text,
      organizationId: column.text.nullable,
      visibility: column.text,
      scanId: column.text.nullable,
      componentCount: column.integer.nullable,
      ingestedAt: column.timestamp.nullable,
      changes: column.integer,
    },
  );
  if (!row) return null;
  return {
    project: {
      id: row.id,
      teamId: row.teamId,
      organizationId: row.organizationId,
      visibility: row.visibility as ProjectAndSnapshot["project"]["visibility"],
    },
    snapshot:
      row.scanId === null
        ? null
        : {
            scanId: row.scanId,
            componentCount: row.componentCount ?? 0,
            ingestedAt: row.ingestedAt!,
            changes: row.changes,
          },
  };
}

/** The snapshot of the scan when it is one of the project's. */
export async function snapshotOfScan(
  em: EntityManager,
  projectId: string,
  scanId: string,
): Promise<SnapshotRef | null> {
  const row = await em.findOne(
    InventorySnapshot,
    { scanId, projectId },
    { ...SNAPSHOT, fields: ["scanId", "componentCount"] },
  );
  return row ? { scanId: row.scanId, componentCount: row.componentCount } : null;
}

/** The newest snapshot of the project, carrying `release` when given. */
export async function newestSnapshot(
  em: EntityManager,
  projectId: string,
  release?: string,
): Promise<SnapshotRef | null> {
  const row = await em.findOne(InventorySnapshot, release === undefined ? { projectId } : { projectId, release }, {
    ...SNAPSHOT,
    fields: ["scanId", "componentCount"],
    orderBy: { ingestedAt: QueryOrder.DESC, scanId: QueryOrder.DESC },
  });
  return row ? { scanId: row.scanId, componentCount: row.componentCount } : null;
}

/** What the graph and the diff tell of a snapshot. */
export type SnapshotFacts = Pick<
  InventorySnapshotRow,
  | "scanId"
  | "ref"
  | "release"
  | "ingestedAt"
  | "componentCount"
  | "edgeCount"
  | "primaryComponentName"
  | "primaryComponentVersion"
  | "primaryComponentPurl"
>;

/** The facts of the scan's snapshot when it is one of the project's. */
export async function snapshotFacts(
  em: EntityManager,
  projectId: string,
  scanId: string,
): Promise<SnapshotFacts | null> {
  return em.findOne(
    InventorySnapshot,
    { scanId, projectId },
    {
      ...SNAPSHOT,
      fields: [
        "scanId",
        "ref",
        "release",
        "ingestedAt",
        "componentCount",
        "edgeCount",
        "primaryComponentName",
        "primaryComponentVersion",
        "primaryComponentPurl",
      ],
    },
  );
}

export interface SnapshotCounts {
  componentCount: number;
  edgeCount: number;
}

/** The counts of the scan's snapshot when it was ingested already. */
export async function ingestedSnapshot(em: EntityManager, scanId: string): Promise<SnapshotCounts | null> {
  const row = await em.findOne(InventorySnapshot, { scanId }, { ...SNAPSHOT, fields: ["componentCount", "edgeCount"] });
  return row ? { componentCount: row.componentCount, edgeCount: row.edgeCount } : null;
}

/** The project of the scan's snapshot, or null when the scan was not ingested. */
export async function snapshotProject(em: EntityManager, scanId: string): Promise<string | null> {
  const row = await em.findOne(InventorySnapshot, { scanId }, { ...SNAPSHOT, fields: ["projectId"] });
  return row?.projectId ?? null;
}

/** The scan ids of the project's snapshots. */
export async function snapshotScanIds(em: EntityManager, projectId: string): Promise<string[]> {
  const rows = await em.find(InventorySnapshot, { projectId }, { ...SNAPSHOT, fields: ["scanId"] });
  return rows.map((r) => r.scanId);
}

/** The newest `limit` snapshots of the project, newest first. */
export async function recentSnapshots(
  em: EntityManager,
  projectId: string,
  limit: number,
): Promise<{ scanId: string; ingestedAt: Date }[]> {
  const rows = await em.find(
    InventorySnapshot,
    { projectId },
    {
      ...SNAPSHOT,
      fields: ["scanId", "ingestedAt"],
      orderBy: { ingestedAt: QueryOrder.DESC, scanId: QueryOrder.DESC },
      limit,
    },
  );
  return rows.map((r) => ({ scanId: r.scanId, ingestedAt: r.ingestedAt }));
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

/** The count of writes each snapshot's finding list derives from (what projectWithNewestSnapshot answers for "findings"). */
export async function findingListWrites(
  em: EntityManager,
  projectId: string,
  scanIds: readonly string[],
): Promise<Map<string, number>> {
  const rows = await preparedQuery(
    em,
    "projects.finding-list-writes.v1",
    `select s.scan_id, (${findingListWritesSql("s.scan_id", "$2::uuid")})::int as changes
       from unnest($1::uuid[]) as s(scan_id)`,
    [`{${scanIds.join(",")}}`, projectId],
    { scanId: column.text, changes: column.integer },
  );
  return new Map(rows.map((r) => [r.scanId, r.changes]));
}
