// "Is this advisory in my portfolio?": an advisory looked up by its id or any alias in the local database, and the
// components of the projects the caller may read whose open findings name it (the portfolio search's first page).
import { useQuery } from "@tanstack/react-query";
import { Link, useNavigate, useSearch } from "@tanstack/react-router";
import { dataOf } from "../problem.ts";
import { ProblemView } from "../problem-view.tsx";
import { api } from "../session/session.ts";
import { DependencyPath } from "./portfolio-search.tsx";

const SHOWN = 25;

export interface AdvisoryLookupSearch {
  advisory?: string;
}

export function AdvisoryLookup() {
  const search: AdvisoryLookupSearch = useSearch({ strict: false });
  const navigate = useNavigate();
  const id = search.advisory?.trim() || null;
  const advisory = useQuery({
    queryKey: ["external-advisory", id],
    queryFn: async () =>
      dataOf(await api.GET("/v1/external-advisories/{advisory_id}", { params: { path: { advisory_id: id! } } })),
    enabled: id !== null,
  });
  const hits = useQuery({
    queryKey: ["portfolio-search", { vulnerability: id, page: 1, size: SHOWN }],
    queryFn: async () =>
      dataOf(
        await api.GET("/v1/portfolio/search", { params: { query: { vulnerability: id!, page: 1, size: SHOWN } } }),
      ),
    enabled: id !== null,
  });
  const a = advisory.data;
  return (
    <section aria-labelledby="advisory-lookup">
      <h2 id="advisory-lookup">Is this advisory in my portfolio?</h2>
      <form
        className="filters"
        role="search"
        aria-label="Look an advisory up"
        onSubmit={(e) => {
          e.preventDefault();
          const value = new FormData(e.currentTarget).get("advisory");
          void navigate({ to: "/packages", search: { ...search, advisory: typeof value === "string" ? value : "" } });
        }}
      >
        <label>
          Advisory id or alias
          <input name="advisory" required maxLength={64} placeholder="CVE-2021-44228" defaultValue={id ?? ""} />
        </label>
        <button type="submit">Find the advisory</button>
      </form>
      <ProblemView error={advisory.error ?? hits.error} />
      {a ? (
        <div className="card" aria-label="Advisory">
          <h3>{a.advisory_id}</h3>
          {a.found ? (
            <>
              <p>{a.title ?? "(no title)"}</p>
              <p>Aliases: {a.aliases.join(", ") || "none"}</p>
              <p>
                CVSS 3: {a.cvss3_score ?? "—"} {a.cvss3_vector ? <code>{a.cvss3_vector}</code> : null}
              </p>
            </>
          ) : (
            <p>The local advisory database does not know this id.</p>
          )}
        </div>
      ) : null}
      {hits.data ? (
        <>
          <p data-testid="advisory-hits">
            {hits.data.total === 0
              ? "No component of the projects you may read has an open finding of it."
              : `${hits.data.total} components of your projects have an open finding of it.`}
          </p>
          {hits.data.items.length ? (
            <ul aria-label="Components with the advisory">
              {hits.data.items.map((h) => (
                <li key={h.component_row_id}>
                  <Link to="/projects/$projectId" params={{ projectId: h.project_id }}>
                    {h.project_name}
                  </Link>
                  :{" "}
                  <DependencyPath
                    path={h.dependency_path.length ? h.dependency_path : [`${h.name}@${h.version ?? ""}`]}
                  />
                </li>
              ))}
            </ul>
          ) : null}
          {hits.data.total > SHOWN ? (
            <Link to="/portfolio" search={{ vulnerability: id!, page: 1 }}>
              All {hits.data.total} in the portfolio search
            </Link>
          ) : null}
        </>
      ) : null}
    </section>
  );
}
