// The dependency graph's rules (the spec's "Dependency graph": node_cap 5000, truncated). The primary component is
// the root: it is no component row, so it is no node, and an edge without `from` starts at it. A snapshot with more
// components than the cap answers the top of the tree: the components in breadth-first order from the root, which
// is the order of their depth (the shortest path length from the root, computed at ingestion), components the root
// does not reach last, ties by name then id; and only the edges whose two ends are kept (the root always is).

export const GRAPH_NODE_CAP = 5000;

/** A component as the graph reads it (a row of the snapshot), in breadth-first order. */
export interface GraphNodeRow {
  id: string;
  componentId: string;
}

/** An edge between component rows; fromId null: the root. */
export interface GraphEdgeRow {
  fromId: string | null;
  toId: string;
  scope: string | null;
}

/** An edge between nodes, named by component id; from null: the root. */
export interface GraphEdge {
  from: string | null;
  to: string;
  scope: string | null;
}

export interface GraphCut<N> {
  nodes: N[];
  edges: GraphEdge[];
  /** The snapshot had more components than the cap. */
  truncated: boolean;
}

/**
 * The answer's part of the graph: the first `cap` nodes (already in breadth-first order) and the edges between
 * them, named by component id. `totalNodes` is the snapshot's component count.
 */
export function cutGraph<N extends GraphNodeRow>(
  nodes: readonly N[],
  edges: readonly GraphEdgeRow[],
  totalNodes: number,
  cap: number = GRAPH_NODE_CAP,
): GraphCut<N> {
  const kept = nodes.slice(0, cap);
  const componentOf = new Map(kept.map((n) => [n.id, n.componentId]));
  const out: GraphEdge[] = [];
  for (const e of edges) {
    const to = componentOf.get(e.toId);
    const from = e.fromId === null ? null : componentOf.get(e.fromId);
    if (to === undefined || from === undefined) continue;
    out.push({ from, to, scope: e.scope });
  }
  return { nodes: kept, edges: out, truncated: totalNodes > kept.length };
}
