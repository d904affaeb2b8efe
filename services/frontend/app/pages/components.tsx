// A project's components: search, filters and sort done by the API, one page of rows at a time, and the CSV.
import { useQuery } from "@tanstack/react-query";
import { Link, useNavigate, useParams, useSearch } from "@tanstack/react-router";
import { useState } from "react";
import { FINDING_SEVERITIES } from "@sca/vocabulary";
import type { Schemas } from "@sca/api-client";
import { DataTable, type Columns } from "../data-table.tsx";
import { download } from "../download.ts";
import { AnyOf } from "../any-of.tsx";
import { filters } from "../form.ts";
import { Pager } from "../pager.tsx";
import { dataOf } from "../problem.ts";
import { ProblemView } from "../problem-view.tsx";
import { api } from "../session/session.ts";

const LIMIT = 50;

type ComponentRow = Schemas["Component"];

const columns = (projectId: string): Columns<ComponentRow> => [
  {
    id: "name",
    header: "Name",
    enableSorting: true,
    cell: ({ row: { original: c } }) => (
      <Link to="/projects/$projectId/components/$componentId" params={{ projectId, componentId: c.component_id }}>
        {c.name}
      </Link>
    ),
  },
  { id: "version", header: "Version", cell: ({ row }) => row.original.version },
  { id: "license", header: "License", enableSorting: true, cell: ({ row }) => row.original.license ?? "—" },
  { id: "severity", header: "Severity", enableSorting: true, cell: ({ row }) => row.original.severity_max ?? "—" },
  { id: "direct", header: "Direct", cell: ({ row }) => (row.original.direct ? "yes" : "no") },
];

export interface ComponentsSearch {
  search?: string;
  severity?: string;
  /** The notifier's deep link says `flagged`; the API's filter is a boolean. */
  malicious?: string;
  direct?: string;
  sort?: string;
  offset?: number;
}

export function ComponentsPage() {
  const { projectId }: { projectId: string } = useParams({ strict: false });
  const search: ComponentsSearch = useSearch({ strict: false });
  const navigate = useNavigate();
  const [csvError, setCsvError] = useState<unknown>(null);
  const offset = search.offset ?? 0;
  const malicious = search.malicious === "flagged" || search.malicious === "true" ? ("true" as const) : undefined;
  const query = {
    limit: LIMIT,
    offset,
    ...(search.search ? { search: search.search } : {}),
    ...(search.severity ? { severity: search.severity } : {}),
    ...(malicious ? { malicious } : {}),
    ...(search.direct === "true" ? { direct: "true" as const } : {}),
    ...(search.sort ? { sort: search.sort } : {}),
  };
  const components = useQuery({
    queryKey: ["project", projectId, "components", query],
    queryFn: async () =>
      dataOf(await api.GET("/v1/projects/{id}/components", { params: { path: { id: projectId }, query } })),
    placeholderData: (previous) => previous,
  });
  const go = (next: ComponentsSearch) =>
    void navigate({ to: "/projects/$projectId/components", params: { projectId }, search: { ...search, ...next } });

  return (
    <main>
      <p>
        <Link to="/projects/$projectId" params={{ projectId }}>
          Back to the project
        </Link>
      </p>
      <div className="heading">
        <h1>Components</h1>
        <button
          type="button"
          onClick={() => {
            setCsvError(null);
            download(`/v1/projects/${projectId}/components/export.csv`, "components.csv").catch(setCsvError);
          }}
        >
          Download CSV
        </button>
      </div>
      <form
        className="filters"
        role="search"
        aria-label="Filter components"
        onSubmit={(e) => {
          e.preventDefault();
          const form = new FormData(e.currentTarget);
          go({
            ...filters(form, ["search", "severity", "malicious", "direct"]),
            offset: 0,
          });
        }}
      >
        <label>
          Name or purl
          <input name="search" type="search" defaultValue={search.search ?? ""} />
        </label>
        <AnyOf label="Highest severity" name="severity" words={FINDING_SEVERITIES} value={search.severity} />
        <label className="inline">
          <input type="checkbox" name="malicious" value="true" defaultChecked={!!malicious} />
          Malicious only
        </label>
        <label className="inline">
          <input type="checkbox" name="direct" value="true" defaultChecked={search.direct === "true"} />
          Direct only
        </label>
        <button type="submit">Filter</button>
      </form>
      <ProblemView error={components.error ?? csvError} />
      <DataTable
        label="Components"
        columns={columns(projectId)}
        rows={components.data?.items}
        rowId={(c) => c.id}
        sort={search.sort}
        onSort={(sort) => go({ sort, offset: 0 })}
      />
      {components.data ? (
        <Pager offset={offset} limit={LIMIT} total={components.data.total} onOffset={(o) => go({ offset: o })} />
      ) : null}
    </main>
  );
}
