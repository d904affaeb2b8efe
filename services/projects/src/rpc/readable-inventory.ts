// The rules every read of a project's inventory shares (components, graph, diff, SBOM export, overview): who may
// read the project (hidden as 404 otherwise, domain/project-access.ts) and which snapshot an anchor names (scan_id
// over release over the newest; endpoints.md, "Release anchors").
import type { HandlerContext } from "@connectrpc/connect";
import type { MikroORM } from "@mikro-orm/postgresql";
import { ProblemError, type FieldViolation } from "@sca/problem";
import type { InventoryAnchor } from "@sca/proto/sca/projects/v1/inventory_pb.ts";
import { requireCaller } from "@sca/rpc";
import { mayRead } from "../domain/project-access.ts";
import { isUuid } from "../domain/project-fields.ts";
import { newestSnapshot, snapshotOfScan, type SnapshotRef } from "../store/inventory/snapshots.ts";
import { projectById, type ProjectRow } from "../store/projects.ts";

/** A scan_id and/or a release label, as the reads' queries give them. */
export type Anchor = Pick<InventoryAnchor, "scanId" | "release">;

const RELEASE_MAX = 255;
export const projectNotFound = () => ProblemError.notFound("No such project.");

/** The project when the caller may read it; 404 otherwise, whether it exists or not. */
export async function readableProject(deps: { orm: MikroORM }, ctx: HandlerContext, id: string): Promise<ProjectRow> {
  const caller = requireCaller(ctx);
  if (!isUuid(id)) throw projectNotFound();
  const row = await projectById(deps.orm.em.fork(), id.toLowerCase());
  if (!row || !mayRead(caller, row)) throw projectNotFound();
  return row;
}

/** The project's id when the caller may read it; 404 otherwise, whether it exists or not. */
export async function readableProjectId(deps: { orm: MikroORM }, ctx: HandlerContext, id: string): Promise<string> {
  return (await readableProject(deps, ctx, id)).id;
}

export function anchorViolations(anchor: Anchor | undefined, v: FieldViolation[]): void {
  if (anchor?.scanId !== undefined && !isUuid(anchor.scanId))
    v.push({ path: "query.scan_id", message: "must be a UUID" });
  if (anchor?.release !== undefined && [...anchor.release.trim()].length > RELEASE_MAX)
    v.push({ path: "query.release", message: `must be at most ${RELEASE_MAX} characters` });
}

/** The snapshot the anchor names: 404 for a scan_id or release the project has no snapshot of; null for none yet. */
export async function anchoredSnapshot(
  deps: { orm: MikroORM },
  projectId: string,
  anchor: Anchor | undefined,
): Promise<SnapshotRef | null> {
  const em = deps.orm.em.fork();
  if (anchor?.scanId !== undefined) {
    const snapshot = await snapshotOfScan(em, projectId, anchor.scanId.toLowerCase());
    if (!snapshot) throw ProblemError.notFound("No succeeded scan of this project has that id.");
    return snapshot;
  }
  if (anchor?.release !== undefined) {
    const snapshot = await newestSnapshot(em, projectId, anchor.release.trim());
    if (!snapshot) throw ProblemError.notFound("No succeeded scan of this project carries that release.");
    return snapshot;
  }
  return newestSnapshot(em, projectId);
}
