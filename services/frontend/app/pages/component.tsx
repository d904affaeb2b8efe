// One component of a project's snapshot: its licenses, its vulnerabilities, its states, and where it comes from (how
// deep, which scope, and the components of the dependency graph that pull it in).
import { useQuery } from "@tanstack/react-query";
import { Link, useParams, useSearch } from "@tanstack/react-router";
import { dataOf } from "../problem.ts";
import { ProblemView } from "../problem-view.tsx";
import { api } from "../session/session.ts";
import { AskForApproval } from "./approvals.tsx";
import { useDependencyGraph } from "./dependency-graph.tsx";

export interface SnapshotSearch {
  scan_id?: string;
}

export function ComponentPage() {
  const { projectId, componentId }: { projectId: string; componentId: string } = useParams({ strict: false });
  const { scan_id }: SnapshotSearch = useSearch({ strict: false });
  const anchor = scan_id ? { scan_id } : {};
  const component = useQuery({
    queryKey: ["project", projectId, "component", componentId, anchor],
    queryFn: async () =>
      dataOf(
        await api.GET("/v1/projects/{id}/components/{component_id}", {
          params: { path: { id: projectId, component_id: componentId }, query: anchor },
        }),
      ),
  });
  const graph = useDependencyGraph(projectId, component.data?.scan_id, !!component.data);

  if (component.error) return <ProblemView error={component.error} />;
  const c = component.data;
  if (!c) return <p role="status">Loading…</p>;
  const names = new Map(graph.data?.nodes.map((n) => [n.component_id, n]));
  const parents = graph.data?.edges.filter((e) => e.to === c.component_id) ?? [];
  const rootName = graph.data?.root
    ? `${graph.data.root.name ?? "the root"} (the project itself)`
    : "the project itself";

  return (
    <main>
      <p>
        <Link to="/projects/$projectId/components" params={{ projectId }}>
          Back to the components
        </Link>
      </p>
      <h1>
        {c.name} {c.version ?? ""}
      </h1>
      <p className="muted">{c.purl ?? "no purl"}</p>
      <AskForApproval projectId={projectId} componentId={componentId} />
      {c.description ? <p>{c.description}</p> : null}
      <section aria-label="Licenses" className="card">
        <h2>Licenses</h2>
        <dl className="facts">
          <dt>License</dt>
          <dd>{c.license ?? "—"}</dd>
          <dt>Category</dt>
          <dd>{c.license_category ?? "—"}</dd>
          <dt>Declared</dt>
          <dd>{c.declared_license ?? "—"}</dd>
          <dt>Concluded</dt>
          <dd>{c.concluded_license ?? "—"}</dd>
          <dt>License ids</dt>
          <dd>{c.license_ids.join(", ") || "—"}</dd>
          <dt>Obligations</dt>
          <dd>{c.obligations.join(", ") || "—"}</dd>
        </dl>
      </section>
      <section aria-label="Vulnerabilities" className="card">
        <h2>Vulnerabilities</h2>
        {c.vulnerabilities.length ? (
          <ul>
            {c.vulnerabilities.map((id) => (
              <li key={id}>
                <Link to="/projects/$projectId/vulnerabilities" params={{ projectId }} search={{ search: id }}>
                  {id}
                </Link>
              </li>
            ))}
          </ul>
        ) : (
          <p>No known vulnerability.</p>
        )}
        <p>Highest severity: {c.severity_max ?? "none"}</p>
      </section>
      <section aria-label="Where it comes from" className="card">
        <h2>Where it comes from</h2>
        <dl className="facts">
          <dt>Dependency</dt>
          <dd>{c.direct === null ? "unknown" : c.direct ? "direct" : `transitive (depth ${c.depth ?? "unknown"})`}</dd>
          <dt>Scope</dt>
          <dd>{c.dependency_scope ?? "unspecified"}</dd>
          <dt>Supplier</dt>
          <dd>{c.supplier ?? c.author ?? "—"}</dd>
          <dt>Type</dt>
          <dd>{[c.type, c.group].filter(Boolean).join(" · ") || "—"}</dd>
        </dl>
        <h3>Pulled in by</h3>
        {parents.length ? (
          <ul aria-label="Pulled in by">
            {parents.map((e) => {
              const from = e.from === null ? undefined : names.get(e.from);
              return (
                <li key={e.from ?? "root"}>
                  {from ? (
                    <Link
                      to="/projects/$projectId/components/$componentId"
                      params={{ projectId, componentId: from.component_id }}
                      search={{ scan_id: c.scan_id }}
                    >
                      {from.name} {from.version ?? ""}
                    </Link>
                  ) : (
                    rootName
                  )}
                </li>
              );
            })}
          </ul>
        ) : (
          <p>{graph.isPending ? "Loading…" : "The document names no component that depends on it."}</p>
        )}
        <p>
          <Link to="/projects/$projectId/graph" params={{ projectId }} search={{ scan_id: c.scan_id }}>
            The whole dependency graph
          </Link>
        </p>
      </section>
      <section aria-label="States" className="card">
        <h2>States</h2>
        <dl className="facts">
          <dt>Currency</dt>
          <dd>
            {c.currency_state ?? "never assessed"}
            {c.currency_latest ? ` (latest ${c.currency_latest})` : ""}
          </dd>
          <dt>End of life</dt>
          <dd>
            {c.eol_state ?? "never assessed"}
            {c.eol_date ? ` (${c.eol_product ?? ""} ${c.eol_cycle ?? ""} ends ${c.eol_date})` : ""}
          </dd>
          <dt>Malicious</dt>
          <dd>
            {c.malicious_state ?? "never assessed"}
            {c.malicious_id ? ` (${c.malicious_id})` : ""}
          </dd>
          <dt>Hashes</dt>
          <dd>{c.hashes.map((h) => `${h.algorithm}:${h.value}`).join(", ") || "—"}</dd>
        </dl>
      </section>
    </main>
  );
}
