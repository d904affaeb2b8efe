// What changed between two succeeded scans of a project (its releases): components added, removed and changed,
// licenses and vulnerabilities gained or lost. The scans to compare are picked among the newest 100.
import { useQuery } from "@tanstack/react-query";
import { Link, useNavigate, useParams, useSearch } from "@tanstack/react-router";
import type { Schemas } from "@sca/api-client";
import { field } from "../form.ts";
import { dataOf } from "../problem.ts";
import { ProblemView } from "../problem-view.tsx";
import { Score } from "../score.tsx";
import { api } from "../session/session.ts";

type DiffComponent = Schemas["ReleaseDiffComponent"];
type Release = Schemas["Scan"];

export interface ReleaseDiffSearch {
  base?: string;
  target?: string;
}

function releaseName(r: Pick<Release, "release" | "ref" | "created_at">): string {
  return `${r.release ?? (r.ref || "unlabelled")} · ${new Date(r.created_at).toLocaleString()}`;
}

export function ReleaseDiffPage() {
  const { projectId }: { projectId: string } = useParams({ strict: false });
  const search: ReleaseDiffSearch = useSearch({ strict: false });
  const navigate = useNavigate();
  const releases = useQuery({
    queryKey: ["project", projectId, "releases"],
    queryFn: async () =>
      dataOf(
        await api.GET("/v1/projects/{id}/releases", { params: { path: { id: projectId }, query: { size: 100 } } }),
      ),
  });
  const items = releases.data?.items ?? [];
  // By default the newest release against the one before it.
  const target = search.target ?? items[0]?.id;
  const base = search.base ?? items[1]?.id ?? target;
  const diff = useQuery({
    queryKey: ["project", projectId, "diff", base, target],
    queryFn: async () =>
      dataOf(
        await api.GET("/v1/projects/{id}/releases/diff", {
          params: { path: { id: projectId }, query: { base: base!, target: target! } },
        }),
      ),
    enabled: !!base && !!target,
  });
  const d = diff.data;

  return (
    <main>
      <p>
        <Link to="/projects/$projectId" params={{ projectId }}>
          Back to the project
        </Link>
      </p>
      <h1>Release diff</h1>
      <ProblemView error={releases.error ?? diff.error} />
      {releases.data && !items.length ? <p>No succeeded scan yet: nothing to compare.</p> : null}
      {items.length ? (
        <form
          className="filters"
          aria-label="Compare releases"
          key={`${base}-${target}`}
          onSubmit={(e) => {
            e.preventDefault();
            const form = new FormData(e.currentTarget);
            void navigate({
              to: "/projects/$projectId/releases/diff",
              params: { projectId },
              search: { base: field(form, "base"), target: field(form, "target") },
            });
          }}
        >
          {(["base", "target"] as const).map((name) => (
            <label key={name}>
              {name === "base" ? "From" : "To"}
              <select name={name} defaultValue={name === "base" ? base : target}>
                {items.map((r) => (
                  <option key={r.id} value={r.id}>
                    {releaseName(r)}
                  </option>
                ))}
              </select>
            </label>
          ))}
          <button type="submit">Compare</button>
        </form>
      ) : null}
      {d ? (
        <>
          <section aria-label="Summary" className="scores">
            <Score label="Components added" value={d.summary.components_added} />
            <Score label="Components removed" value={d.summary.components_removed} />
            <Score label="Components changed" value={d.summary.components_changed} />
            <Score label="Unchanged" value={d.summary.components_unchanged} />
            <Score label="Licenses added" value={d.summary.licenses_added} />
            <Score label="Vulnerabilities added" value={d.summary.vulnerabilities_added} />
            <Score label="Vulnerabilities removed" value={d.summary.vulnerabilities_removed} />
          </section>
          {d.truncated ? <p>Each list shows its first {d.list_cap} rows; the counts above are whole.</p> : null}
          <ComponentList label="Added components" rows={d.components.added} />
          <ComponentList label="Removed components" rows={d.components.removed} />
          <h2>Changed components</h2>
          <table aria-label="Changed components">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">From</th>
                <th scope="col">To</th>
                <th scope="col">What changed</th>
              </tr>
            </thead>
            <tbody>
              {d.components.changed.map((c) => (
                <tr key={c.target.id}>
                  <td>{c.target.name}</td>
                  <td>{`${c.base.version ?? ""} ${c.base.license ?? ""}`}</td>
                  <td>{`${c.target.version ?? ""} ${c.target.license ?? ""}`}</td>
                  <td>{c.changes.join(", ")}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <h2>Licenses</h2>
          <p>
            Added: {d.licenses.added.map((l) => `${l.license_id} (${l.component_count})`).join(", ") || "none"}.
            Removed: {d.licenses.removed.map((l) => `${l.license_id} (${l.component_count})`).join(", ") || "none"}.
          </p>
          <h2>Vulnerabilities</h2>
          <p>
            Added: {d.vulnerabilities.added.join(", ") || "none"}. Removed:{" "}
            {d.vulnerabilities.removed.join(", ") || "none"}.
          </p>
        </>
      ) : null}
    </main>
  );
}

function ComponentList({ label, rows }: { label: string; rows: readonly DiffComponent[] }) {
  return (
    <>
      <h2>{label}</h2>
      {rows.length ? (
        <table aria-label={label}>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Version</th>
              <th scope="col">License</th>
              <th scope="col">Direct</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((c) => (
              <tr key={c.id}>
                <td>{c.name}</td>
                <td>{c.version ?? "—"}</td>
                <td>{c.license ?? "—"}</td>
                <td>{c.direct ? "yes" : "no"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p>None.</p>
      )}
    </>
  );
}
