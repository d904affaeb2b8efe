// "Is this package safe?": a package looked up by ecosystem and name in the local advisory database (any version), with
// its licenses and the projects the caller may read whose newest scan holds it.
import { useQuery } from "@tanstack/react-query";
import { Link, useNavigate, useSearch } from "@tanstack/react-router";
import { filters } from "../form.ts";
import { dataOf } from "../problem.ts";
import { ProblemView } from "../problem-view.tsx";
import { api } from "../session/session.ts";
import { AdvisoryLookup } from "./advisory-lookup.tsx";

const ECOSYSTEMS = ["npm", "pypi", "maven", "go", "cargo", "nuget"] as const;

export interface PackageLookupSearch {
  ecosystem?: string;
  name?: string;
}

export function PackageLookupPage() {
  const search: PackageLookupSearch = useSearch({ strict: false });
  const navigate = useNavigate();
  const asked = search.ecosystem && search.name ? { ecosystem: search.ecosystem, name: search.name } : null;
  const lookup = useQuery({
    queryKey: ["external-package", asked],
    queryFn: async () => dataOf(await api.GET("/v1/external-packages", { params: { query: asked! } })),
    enabled: asked !== null,
  });
  const p = lookup.data;
  return (
    <main>
      <h1>Is this package safe?</h1>
      <form
        className="filters"
        role="search"
        aria-label="Look a package up"
        onSubmit={(e) => {
          e.preventDefault();
          void navigate({
            to: "/packages",
            search: { ...search, ...filters(new FormData(e.currentTarget), ["ecosystem", "name"]) },
          });
        }}
      >
        <label>
          Ecosystem
          <select name="ecosystem" defaultValue={search.ecosystem ?? "npm"}>
            {ECOSYSTEMS.map((e) => (
              <option key={e}>{e}</option>
            ))}
          </select>
        </label>
        <label>
          Package name
          <input name="name" required maxLength={255} defaultValue={search.name ?? ""} />
        </label>
        <button type="submit">Look up</button>
      </form>
      <ProblemView error={lookup.error} />
      {p ? (
        <section aria-label="Package" className="card">
          <h2>
            {p.ecosystem}/{p.name}
          </h2>
          <p data-testid="advisory-count">
            {p.advisory_count === 0
              ? "No advisory in the local database names this package."
              : `${p.advisory_count} advisories name this package (some versions may be fixed): ${p.advisory_ids.join(", ")}`}
          </p>
          <p>Licenses: {p.licenses.join(", ") || "none known"}</p>
          <h3>Your projects holding it</h3>
          {p.internal_projects.length ? (
            <ul aria-label="Projects holding it">
              {p.internal_projects.map((ip) => (
                <li key={ip.project_id}>
                  <Link to="/projects/$projectId" params={{ projectId: ip.project_id }}>
                    {ip.name}
                  </Link>{" "}
                  ({ip.versions.join(", ")})
                </li>
              ))}
            </ul>
          ) : (
            <p>None of the projects you may read holds it.</p>
          )}
        </section>
      ) : null}
      <AdvisoryLookup />
    </main>
  );
}
