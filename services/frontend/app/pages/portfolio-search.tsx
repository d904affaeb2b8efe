// Portfolio search: which components of the projects the caller may read match a package (and version range), a
// vulnerability id or alias, or a license, each drawn with its dependency path from the project's root. The API
// filters and pages; "Download CSV" is the same search from the API's export.
import { useMutation, useQuery } from "@tanstack/react-query";
import { Link, useNavigate, useSearch } from "@tanstack/react-router";
import type { Schemas } from "@sca/api-client";
import { DataTable, type Columns } from "../data-table.tsx";
import { download } from "../download.ts";
import { filters } from "../form.ts";
import { Pager } from "../pager.tsx";
import { dataOf } from "../problem.ts";
import { ProblemView } from "../problem-view.tsx";
import { api } from "../session/session.ts";

const PAGE_SIZE = 25;
const CRITERIA = ["package", "version", "ecosystem", "vulnerability", "license"] as const;
type Criteria = Partial<Record<(typeof CRITERIA)[number], string>>;

export type PortfolioSearch = Criteria & { page?: number };

/** The criteria the URL holds, or null when there is nothing to search for (a version or ecosystem needs a package). */
export function criteriaOf(search: PortfolioSearch): Criteria | null {
  const criteria: Criteria = {};
  for (const name of CRITERIA) if (search[name]) criteria[name] = String(search[name]);
  return criteria.package || criteria.vulnerability || criteria.license ? criteria : null;
}

/** root → … → component, as an ordered list a screen reader reads in order. */
export function DependencyPath({ path }: { path: string[] }) {
  if (!path.length) return <span className="muted">no dependency edge leads to it</span>;
  return (
    <ol className="path" aria-label="Dependency path">
      {path.map((step, i) => (
        <li key={i}>
          {i > 0 ? <span aria-hidden="true">→ </span> : null}
          {step}
        </li>
      ))}
    </ol>
  );
}

const columns: Columns<Schemas["PortfolioSearchHit"]> = [
  {
    id: "project",
    header: "Project",
    cell: ({ row: { original: h } }) => (
      <Link to="/projects/$projectId" params={{ projectId: h.project_id }}>
        {h.project_name}
      </Link>
    ),
  },
  { id: "release", header: "Release", cell: ({ row }) => row.original.release ?? "—" },
  {
    id: "component",
    header: "Component",
    cell: ({ row: { original: h } }) => (
      <Link
        to="/projects/$projectId/components/$componentId"
        params={{ projectId: h.project_id, componentId: h.component_id }}
        search={{ scan_id: h.scan_id }}
      >
        {h.version ? `${h.name}@${h.version}` : h.name}
      </Link>
    ),
  },
  { id: "license", header: "License", cell: ({ row }) => row.original.license ?? "—" },
  { id: "vulnerabilities", header: "Open vulnerabilities", cell: ({ row }) => row.original.vulnerabilities.join(", ") },
  { id: "path", header: "Dependency path", cell: ({ row }) => <DependencyPath path={row.original.dependency_path} /> },
];

export function PortfolioSearchPage() {
  const search: PortfolioSearch = useSearch({ strict: false });
  const navigate = useNavigate();
  const criteria = criteriaOf(search);
  const page = search.page ?? 1;
  const query = { ...criteria, page, size: PAGE_SIZE };
  const hits = useQuery({
    queryKey: ["portfolio-search", query],
    queryFn: async () => dataOf(await api.GET("/v1/portfolio/search", { params: { query } })),
    enabled: criteria !== null,
    placeholderData: (previous) => previous,
  });
  const csv = useMutation({
    mutationFn: () =>
      download(`/v1/portfolio/search/export.csv?${new URLSearchParams(criteria ?? {}).toString()}`, "portfolio.csv"),
  });
  return (
    <main>
      <h1>Portfolio search</h1>
      <form
        className="filters"
        role="search"
        aria-label="Search the portfolio"
        onSubmit={(e) => {
          e.preventDefault();
          void navigate({ to: "/portfolio", search: { ...filters(new FormData(e.currentTarget), CRITERIA), page: 1 } });
        }}
      >
        <label>
          Package
          <input name="package" maxLength={255} defaultValue={search.package ?? ""} />
        </label>
        <label>
          Version or range
          <input name="version" maxLength={255} placeholder=">=2.0,<2.15" defaultValue={search.version ?? ""} />
        </label>
        <label>
          Ecosystem
          <input name="ecosystem" maxLength={64} placeholder="npm" defaultValue={search.ecosystem ?? ""} />
        </label>
        <label>
          Vulnerability
          <input name="vulnerability" maxLength={255} defaultValue={search.vulnerability ?? ""} />
        </label>
        <label>
          License
          <input name="license" maxLength={255} defaultValue={search.license ?? ""} />
        </label>
        <button type="submit">Search</button>
      </form>
      {criteria ? null : <p className="muted">Name a package, a vulnerability or a license.</p>}
      <ProblemView error={hits.error ?? csv.error} />
      {hits.data ? (
        <>
          <div className="heading">
            <p data-testid="hit-count">{hits.data.total} components match</p>
            <button type="button" onClick={() => csv.mutate()} disabled={csv.isPending}>
              Download CSV
            </button>
          </div>
          <DataTable
            label="Matching components"
            columns={columns}
            rows={hits.data.items}
            rowId={(h) => h.component_row_id}
          />
          <Pager
            offset={(page - 1) * PAGE_SIZE}
            limit={PAGE_SIZE}
            total={hits.data.total}
            onOffset={(offset) =>
              void navigate({ to: "/portfolio", search: { ...search, page: offset / PAGE_SIZE + 1 } })
            }
          />
        </>
      ) : null}
    </main>
  );
}
