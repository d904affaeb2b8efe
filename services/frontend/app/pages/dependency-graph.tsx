// A snapshot's dependency graph as a tree from the project's root: each component under the components that pull it
// in, drawn in full at its first place only (later places say so), so a shared subtree is not repeated and a
// 5000-node answer stays 5000 items. Native <details> keep it keyboard reachable and readable by a screen reader.
import { useQuery } from "@tanstack/react-query";
import { Link, useParams, useSearch } from "@tanstack/react-router";
import type { ReactNode } from "react";
import type { Schemas } from "@sca/api-client";
import { dataOf } from "../problem.ts";
import { ProblemView } from "../problem-view.tsx";
import { api } from "../session/session.ts";
import type { SnapshotSearch } from "./component.tsx";

type Graph = Schemas["DependencyGraph"];

export function useDependencyGraph(projectId: string, scanId: string | undefined, enabled = true) {
  const query = scanId ? { scan_id: scanId } : {};
  return useQuery({
    queryKey: ["project", projectId, "graph", query],
    queryFn: async () =>
      dataOf(await api.GET("/v1/projects/{id}/dependency-graph", { params: { path: { id: projectId }, query } })),
    enabled,
    staleTime: 60_000,
  });
}

export function DependencyGraphPage() {
  const { projectId }: { projectId: string } = useParams({ strict: false });
  const { scan_id }: SnapshotSearch = useSearch({ strict: false });
  const graph = useDependencyGraph(projectId, scan_id);
  const g = graph.data;
  return (
    <main>
      <p>
        <Link to="/projects/$projectId" params={{ projectId }}>
          Back to the project
        </Link>
      </p>
      <h1>Dependency graph</h1>
      <ProblemView error={graph.error} />
      {g ? (
        <>
          <p data-testid="graph-counts">
            {g.node_count} components, {g.edge_count} edges
            {g.truncated
              ? ` (the first ${g.node_cap} of ${g.total_node_count} components from the root: the rest is not shown)`
              : ""}
          </p>
          {g.scan_id ? <GraphTree graph={g} projectId={projectId} /> : <p>No scan yet.</p>}
        </>
      ) : (
        <p role="status">Loading…</p>
      )}
    </main>
  );
}

function GraphTree({ graph, projectId }: { graph: Graph; projectId: string }) {
  const nodes = new Map(graph.nodes.map((n) => [n.component_id, n]));
  const children = new Map<string | null, string[]>();
  for (const e of graph.edges) children.set(e.from, [...(children.get(e.from) ?? []), e.to]);
  // Components no edge reaches hang from the root, so every node is drawn once.
  const reached = new Set(graph.edges.map((e) => e.to));
  const top = [
    ...(children.get(null) ?? []),
    ...graph.nodes.filter((n) => !reached.has(n.component_id)).map((n) => n.component_id),
  ];
  const drawn = new Set<string>();

  function item(id: string): ReactNode {
    const node = nodes.get(id);
    if (!node) return null;
    const label = (
      <>
        <Link
          to="/projects/$projectId/components/$componentId"
          params={{ projectId, componentId: id }}
          search={{ scan_id: graph.scan_id ?? undefined }}
        >
          {node.name} {node.version ?? ""}
        </Link>
        {node.severity_max ? <span className="badge"> {node.severity_max}</span> : null}
      </>
    );
    if (drawn.has(id))
      return (
        <li key={id}>
          {label} <span className="muted">(its dependencies are shown above)</span>
        </li>
      );
    drawn.add(id);
    const below = (children.get(id) ?? []).filter((c) => nodes.has(c));
    if (!below.length) return <li key={id}>{label}</li>;
    return (
      <li key={id}>
        {label}
        <details open={node.depth !== null && node.depth <= 1}>
          <summary>{below.length === 1 ? "1 dependency" : `${below.length} dependencies`}</summary>
          <ul>{below.map(item)}</ul>
        </details>
      </li>
    );
  }

  return (
    <section aria-label="Dependency tree" className="tree">
      <p>
        <strong>{graph.root?.name ?? "The project"}</strong> {graph.root?.version ?? ""}
      </p>
      <ul>{top.map(item)}</ul>
    </section>
  );
}
