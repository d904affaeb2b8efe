// Views of a snapshot beyond its rows: the dependency graph of the anchor's snapshot (GetDependencyGraph) and the
// diff of two succeeded scans (DiffReleases). Who may read, and which snapshot an anchor names, are the component
// list's (inventory-reads.ts): a project the caller may not read is 404, as is a scan the project has no snapshot of.
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { HandlerContext } from "@connectrpc/connect";
import { ProblemError, type FieldViolation } from "@sca/problem";
import {
  DiffComponentSchema,
  DiffReleasesResponseSchema,
  DiffScanSchema,
  GetDependencyGraphResponseSchema,
  GraphNodeSchema,
  type DiffComponent,
  type DiffReleasesRequest,
  type DiffScan,
  type GetDependencyGraphRequest,
  type GraphNode,
} from "@sca/proto/sca/projects/v1/inventory_pb.ts";
import { rejectViolations } from "../domain/component-list.ts";
import { cutGraph, GRAPH_NODE_CAP } from "../domain/dependency-graph.ts";
import { isUuid } from "../domain/project-fields.ts";
import { changesOf, DIFF_LIST_CAP, diffSummary, diffTruncated, NO_CHANGES } from "../domain/release-diff.ts";
import { graphEdges, graphNodes, type GraphNodeRow } from "../store/inventory/dependency-graph.ts";
import { diffSnapshots, type DiffComponentRow, type DiffRows } from "../store/inventory/release-diff.ts";
import { snapshotFacts, type SnapshotFacts } from "../store/inventory/snapshots.ts";
import type { InventoryHandlers, InventoryServiceDeps } from "./inventory-deps.ts";
import { optional } from "./inventory-reads.ts";
import { anchoredSnapshot, anchorViolations, readableProjectId } from "./readable-inventory.ts";

function nodeView(n: GraphNodeRow): GraphNode {
  return create(GraphNodeSchema, {
    id: n.id,
    componentId: n.componentId,
    name: n.name,
    version: optional(n.version),
    purl: optional(n.purl),
    type: optional(n.type),
    group: optional(n.groupName),
    direct: optional(n.direct),
    depth: optional(n.depth),
    dependencyScope: optional(n.dependencyScope),
    license: optional(n.license),
    licenseCategory: optional(n.licenseCategory),
    severityMax: optional(n.severityMax),
  });
}

function diffComponentView(c: DiffComponentRow): DiffComponent {
  return create(DiffComponentSchema, {
    id: c.id,
    componentId: c.componentId,
    name: c.name,
    version: optional(c.version),
    purl: optional(c.purl),
    type: optional(c.type),
    group: optional(c.groupName),
    license: optional(c.license),
    direct: optional(c.direct),
    depth: optional(c.depth),
  });
}

function diffScanView(s: SnapshotFacts): DiffScan {
  return create(DiffScanSchema, {
    scanId: s.scanId,
    release: optional(s.release),
    ref: s.ref,
    ingestedAt: timestampFromDate(s.ingestedAt),
    componentCount: s.componentCount,
  });
}

/** A scan id of the diff's query: required, a UUID. */
function diffScanId(value: string, path: string, v: FieldViolation[]): string {
  if (value === "") v.push({ path, message: "is required" });
  else if (!isUuid(value)) v.push({ path, message: "must be a UUID" });
  return value.toLowerCase();
}

export function inventoryViewHandlers(
  deps: InventoryServiceDeps,
): InventoryHandlers<"getDependencyGraph" | "diffReleases"> {
  return {
    async getDependencyGraph(req: GetDependencyGraphRequest, ctx: HandlerContext) {
      const projectId = await readableProjectId(deps, ctx, req.projectId);
      const v: FieldViolation[] = [];
      anchorViolations(req.anchor, v);
      rejectViolations(v);
      const scanId = (await anchoredSnapshot(deps, projectId, req.anchor))?.scanId;
      const empty = { scanId: "", nodeCap: GRAPH_NODE_CAP };
      if (!scanId) return create(GetDependencyGraphResponseSchema, empty);
      const em = deps.orm.em.fork();
      const facts = await snapshotFacts(em, projectId, scanId);
      if (!facts) return create(GetDependencyGraphResponseSchema, empty);
      const nodes = await graphNodes(em, scanId, GRAPH_NODE_CAP);
      const edges = await graphEdges(
        em,
        scanId,
        nodes.map((n) => n.id),
      );
      const cut = cutGraph(nodes, edges, facts.componentCount);
      const hasRoot = facts.primaryComponentName !== null || facts.primaryComponentPurl !== null;
      return create(GetDependencyGraphResponseSchema, {
        scanId,
        root: hasRoot
          ? {
              name: optional(facts.primaryComponentName),
              version: optional(facts.primaryComponentVersion),
              purl: optional(facts.primaryComponentPurl),
            }
          : undefined,
        nodes: cut.nodes.map(nodeView),
        edges: cut.edges.map((e) => ({ from: optional(e.from), to: e.to, scope: optional(e.scope) })),
        nodeCap: GRAPH_NODE_CAP,
        nodeCount: cut.nodes.length,
        edgeCount: cut.edges.length,
        totalNodeCount: facts.componentCount,
        totalEdgeCount: facts.edgeCount,
        truncated: cut.truncated,
      });
    },

    async diffReleases(req: DiffReleasesRequest, ctx: HandlerContext) {
      const projectId = await readableProjectId(deps, ctx, req.projectId);
      const v: FieldViolation[] = [];
      const base = diffScanId(req.base, "query.base", v);
      const target = diffScanId(req.target, "query.target", v);
      rejectViolations(v);
      const em = deps.orm.em.fork();
      const notFound = (which: string) =>
        ProblemError.notFound(`No succeeded scan of this project has the ${which} id.`);
      const baseFacts = await snapshotFacts(em, projectId, base);
      if (!baseFacts) throw notFound("base");
      const targetFacts = await snapshotFacts(em, projectId, target);
      if (!targetFacts) throw notFound("target");
      // The same scan: nothing differs, and nothing needs reading.
      const rows: DiffRows =
        base === target
          ? {
              components: { added: [], removed: [], changed: [] },
              licenses: { added: [], removed: [] },
              vulnerabilities: { added: [], removed: [] },
              totals: NO_CHANGES,
            }
          : await diffSnapshots(em, base, target, DIFF_LIST_CAP);
      const s = diffSummary(rows.totals, targetFacts.componentCount);
      return create(DiffReleasesResponseSchema, {
        base: diffScanView(baseFacts),
        target: diffScanView(targetFacts),
        components: {
          added: rows.components.added.map(diffComponentView),
          removed: rows.components.removed.map(diffComponentView),
          changed: rows.components.changed.map((c) => ({
            base: diffComponentView(c.base),
            target: diffComponentView(c.target),
            changes: changesOf(c.base, c.target),
          })),
        },
        licenses: rows.licenses,
        vulnerabilities: rows.vulnerabilities,
        summary: s,
        truncated: diffTruncated(rows.totals),
        listCap: DIFF_LIST_CAP,
      });
    },
  };
}
