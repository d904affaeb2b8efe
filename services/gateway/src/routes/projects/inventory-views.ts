// Views of a project's inventory beyond its component rows (InventoryService of projects): the dependency graph of
// the anchor's snapshot and the diff of two releases. Paths are ours (the spec shows the shapes only):
// GET /v1/projects/{id}/dependency-graph and GET /v1/projects/{id}/releases/diff (docs/inventory.md).
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { z } from "zod";
import type {
  DiffComponent,
  DiffReleasesResponse,
  DiffScan,
  GetDependencyGraphResponse,
  GraphNode,
} from "@sca/proto/sca/projects/v1/inventory_pb.ts";
import { problemResponse } from "../../api/problem-schema.ts";
import { defineRoute, type Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";

const TAGS = ["components"];
const text = () => z.string().nullable();

const graphNodeSchema = z
  .object({
    id: z.uuid().meta({ description: "The component's row in this snapshot" }),
    component_id: z.uuid().meta({ description: "The component's identity across scans; what edges name" }),
    name: z.string(),
    version: text(),
    purl: text(),
    type: text(),
    group: text(),
    direct: z.boolean().nullable(),
    depth: z.number().int().nullable().meta({ description: "Shortest path length from the root (direct = 1)" }),
    dependency_scope: text().meta({ description: "required, optional or null" }),
    license: text(),
    license_category: text(),
    severity_max: text(),
  })
  .meta({ id: "DependencyGraphNode" });

const graphSchema = z
  .object({
    scan_id: z.uuid().nullable().meta({ description: "The snapshot read; null when the project has none" }),
    root: z
      .object({ name: text(), version: text(), purl: text() })
      .nullable()
      .meta({ description: "The primary component (no node); null when the document named none" }),
    nodes: z.array(graphNodeSchema).meta({ description: "Breadth-first from the root: by depth, unreached last" }),
    edges: z.array(
      z.object({
        from: z.uuid().nullable().meta({ description: "A node's component_id; null: the root" }),
        to: z.uuid(),
        scope: text(),
      }),
    ),
    node_cap: z.number().int().meta({ description: "At most this many nodes (5000)" }),
    node_count: z.number().int().meta({ description: "Nodes of this answer" }),
    edge_count: z.number().int().meta({ description: "Edges of this answer (between its nodes and from the root)" }),
    total_node_count: z.number().int().meta({ description: "Components of the whole snapshot" }),
    total_edge_count: z.number().int().meta({ description: "Edges of the whole snapshot" }),
    truncated: z.boolean().meta({ description: "The snapshot has more components than node_cap" }),
  })
  .meta({ id: "DependencyGraph" });

function graphJson(g: GetDependencyGraphResponse): z.input<typeof graphSchema> {
  return {
    scan_id: g.scanId || null,
    root: g.root ? { name: g.root.name ?? null, version: g.root.version ?? null, purl: g.root.purl ?? null } : null,
    nodes: g.nodes.map((n: GraphNode) => ({
      id: n.id,
      component_id: n.componentId,
      name: n.name,
      version: n.version ?? null,
      purl: n.purl ?? null,
      type: n.type ?? null,
      group: n.group ?? null,
      direct: n.direct ?? null,
      depth: n.depth ?? null,
      dependency_scope: n.dependencyScope ?? null,
      license: n.license ?? null,
      license_category: n.licenseCategory ?? null,
      severity_max: n.severityMax ?? null,
    })),
    edges: g.edges.map((e) => ({ from: e.from ?? null, to: e.to, scope: e.scope ?? null })),
    node_cap: g.nodeCap,
    node_count: g.nodeCount,
    edge_count: g.edgeCount,
    total_node_count: g.totalNodeCount,
    total_edge_count: g.totalEdgeCount,
    truncated: g.truncated,
  };
}

const diffComponentSchema = z
  .object({
    id: z.uuid(),
    component_id: z.uuid(),
    name: z.string(),
    version: text(),
    purl: text(),
    type: text(),
    group: text(),
    license: text(),
    direct: z.boolean().nullable(),
    depth: z.number().int().nullable(),
  })
  .meta({ id: "ReleaseDiffComponent" });

const diffScanSchema = z
  .object({
    scan_id: z.uuid(),
    release: text(),
    ref: z.string().meta({ description: "The scan's normalised ref; empty when none" }),
    ingested_at: z.iso.datetime(),
    component_count: z.number().int(),
  })
  .meta({ id: "ReleaseDiffScan" });

const licenseCountSchema = z.object({ license_id: z.string(), component_count: z.number().int() });
const count = () => z.number().int().min(0);

const diffSchema = z
  .object({
    base: diffScanSchema,
    target: diffScanSchema,
    components: z.object({
      added: z.array(diffComponentSchema),
      removed: z.array(diffComponentSchema),
      changed: z.array(
        z.object({
          base: diffComponentSchema,
          target: diffComponentSchema,
          changes: z.array(z.enum(["version", "license"])),
        }),
      ),
    }),
    licenses: z.object({
      added: z.array(licenseCountSchema).meta({ description: "License ids only the target names (its counts)" }),
      removed: z.array(licenseCountSchema).meta({ description: "License ids only the base names (its counts)" }),
    }),
    vulnerabilities: z.object({ added: z.array(z.string()), removed: z.array(z.string()) }).meta({
      description: "Vulnerability ids with an open finding in the target only (added) or the base only (removed)",
    }),
    summary: z.object({
      components_added: count(),
      components_removed: count(),
      components_changed: count(),
      components_unchanged: count(),
      licenses_added: count(),
      licenses_removed: count(),
      vulnerabilities_added: count(),
      vulnerabilities_removed: count(),
    }),
    truncated: z.boolean().meta({ description: "A list held more than list_cap rows; the summary counts them all" }),
    list_cap: z.number().int().meta({ description: "At most this many rows per list (1000)" }),
  })
  .meta({ id: "ReleaseDiff" });

const diffComponentJson = (c: DiffComponent | undefined): z.input<typeof diffComponentSchema> => ({
  id: c!.id,
  component_id: c!.componentId,
  name: c!.name,
  version: c!.version ?? null,
  purl: c!.purl ?? null,
  type: c!.type ?? null,
  group: c!.group ?? null,
  license: c!.license ?? null,
  direct: c!.direct ?? null,
  depth: c!.depth ?? null,
});

const diffScanJson = (s: DiffScan | undefined): z.input<typeof diffScanSchema> => ({
  scan_id: s!.scanId,
  release: s!.release ?? null,
  ref: s!.ref,
  ingested_at: (s!.ingestedAt ? timestampDate(s!.ingestedAt) : new Date(0)).toISOString(),
  component_count: s!.componentCount,
});

function diffJson(d: DiffReleasesResponse): z.input<typeof diffSchema> {
  const s = d.summary!;
  const licenses = (l: { licenseId: string; componentCount: number }[]) =>
    l.map((x) => ({ license_id: x.licenseId, component_count: x.componentCount }));
  return {
    base: diffScanJson(d.base),
    target: diffScanJson(d.target),
    components: {
      added: d.components!.added.map(diffComponentJson),
      removed: d.components!.removed.map(diffComponentJson),
      changed: d.components!.changed.map((c) => ({
        base: diffComponentJson(c.base),
        target: diffComponentJson(c.target),
        changes: c.changes as ("version" | "license")[],
      })),
    },
    licenses: { added: licenses(d.licenses!.added), removed: licenses(d.licenses!.removed) },
    vulnerabilities: { added: d.vulnerabilities!.added, removed: d.vulnerabilities!.removed },
    summary: {
      components_added: s.componentsAdded,
      components_removed: s.componentsRemoved,
      components_changed: s.componentsChanged,
      components_unchanged: s.componentsUnchanged,
      licenses_added: s.licensesAdded,
      licenses_removed: s.licensesRemoved,
      vulnerabilities_added: s.vulnerabilitiesAdded,
      vulnerabilities_removed: s.vulnerabilitiesRemoved,
    },
    truncated: d.truncated,
    list_cap: d.listCap,
  };
}

export function inventoryViewRoutes(ctx: GatewayContext): Route[] {
  const inventory = ctx.clients.projects.inventory;
  const caller = ctx.auth.route("caller");
  const projectParams = z.object({ id: z.uuid() });
  return [
    defineRoute({
      method: "get",
      path: "/v1/projects/{id}/dependency-graph",
      summary: "A project's dependency graph",
      description:
        "The graph of the anchor's snapshot: scan_id (a succeeded scan of the project) wins over release (the newest " +
        "succeeded scan with that label); neither: the newest succeeded scan (a project not scanned yet: an empty " +
        "graph, scan_id null). The primary component is the root; edges with from null start at it. At most " +
        "node_cap (5000) nodes, chosen breadth-first from the root (the top of the tree), with the edges between " +
        "them; truncated when the snapshot has more. node_count and edge_count count this answer, total_node_count " +
        "and total_edge_count the whole snapshot.",
      tags: TAGS,
      operationId: "getDependencyGraph",
      auth: caller,
      request: {
        params: projectParams,
        query: z.object({
          scan_id: z
            .uuid()
            .optional()
            .meta({ description: "A succeeded scan of the project (else 404); wins over release" }),
          release: z.string().max(255).optional().meta({ description: "Exact release label, trimmed (unknown: 404)" }),
        }),
      },
      responses: {
        200: { description: "The graph", schema: graphSchema },
        404: problemResponse("No such project (or not readable), or no succeeded scan for scan_id / release"),
      },
      handler: async ({ params, query, call }) => {
        const graph = await inventory.getDependencyGraph(
          { projectId: params.id, anchor: { scanId: query.scan_id, release: query.release } },
          call,
        );
        return { status: 200, body: graphJson(graph) };
      },
    }),
    defineRoute({
      method: "get",
      path: "/v1/projects/{id}/releases/diff",
      summary: "What changed between two releases (scans) of a project",
      description:
        "base and target are succeeded scans of the project (else 404), both required; equal ones answer an empty " +
        "diff. Components are compared by key (the purl, else type/group/name@version): added, removed, or changed " +
        "when one component of the same identity (the purl without version, else type, group and name) is on each " +
        "side, or the same key has another license. Licenses: ids named only by the target (added) or the base " +
        "(removed), with component counts. Vulnerabilities are always empty (the diff does not read findings). Each list " +
        "holds at most list_cap (1000) rows by name (truncated when one held more); the summary counts everything.",
      tags: TAGS,
      operationId: "diffReleases",
      auth: caller,
      request: {
        params: projectParams,
        query: z.object({
          base: z.uuid().meta({ description: "The earlier scan (a succeeded scan of the project)" }),
          target: z.uuid().meta({ description: "The later scan (a succeeded scan of the project)" }),
        }),
      },
      responses: {
        200: { description: "The diff", schema: diffSchema },
        404: problemResponse("No such project (or not readable), or base / target is no succeeded scan of it"),
      },
      handler: async ({ params, query, call }) => {
        const diff = await inventory.diffReleases(
          { projectId: params.id, base: query.base, target: query.target },
          call,
        );
        return { status: 200, body: diffJson(diff) };
      },
    }),
  ];
}
