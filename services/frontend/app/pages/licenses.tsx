// A project's licenses (one row per component of the newest snapshot, filtered, sorted and paged by the API; the CSV)
// and its obligations (by whether fulfilled, paged by the API) with their fulfilments, written by the team's writers.
import { useQuery } from "@tanstack/react-query";
import { Link, useNavigate, useParams, useSearch } from "@tanstack/react-router";
import { useState } from "react";
import type { Schemas } from "@sca/api-client";
import { AnyOf } from "../any-of.tsx";
import { DataTable, type Columns } from "../data-table.tsx";
import { download } from "../download.ts";
import { filters } from "../form.ts";
import { Pager } from "../pager.tsx";
import { dataOf } from "../problem.ts";
import { ProblemView } from "../problem-view.tsx";
import { canWrite, useMe } from "../session/me.ts";
import { api } from "../session/session.ts";
import { Fulfilment } from "./fulfilment.tsx";

const LIMIT = 50;
const CATEGORIES = ["allowed", "conditional", "forbidden"] as const;

export interface LicensesSearch {
  search?: string;
  license_category?: string;
  sort?: string;
  offset?: number;
  obligations_offset?: number;
  fulfilled?: string;
}

type LicenseRow = Schemas["LicenseFinding"];
type ObligationRow = Schemas["Obligation"];

const licenseColumns = (projectId: string): Columns<LicenseRow> => [
  {
    id: "component",
    header: "Component",
    enableSorting: true,
    cell: ({ row: { original: l } }) => (
      <Link to="/projects/$projectId/components/$componentId" params={{ projectId, componentId: l.component_id }}>
        {l.component_name} {l.component_version ?? ""}
      </Link>
    ),
  },
  { id: "license", header: "License", enableSorting: true, cell: ({ row }) => row.original.license ?? "—" },
  { id: "category", header: "Category", cell: ({ row }) => row.original.license_category ?? "—" },
  { id: "declared", header: "Declared", cell: ({ row }) => row.original.declared_license ?? "—" },
  { id: "concluded", header: "Concluded", cell: ({ row }) => row.original.concluded_license ?? "—" },
];

const obligationColumns = (writer: boolean): Columns<ObligationRow> => [
  { id: "license", header: "License", cell: ({ row }) => row.original.license },
  { id: "title", header: "Obligation", cell: ({ row }) => row.original.title },
  { id: "category", header: "Category", cell: ({ row }) => row.original.license_category },
  { id: "components", header: "Components", cell: ({ row }) => row.original.component_count },
  {
    id: "fulfilled",
    header: "Fulfilled",
    cell: ({ row }) => <Fulfilment obligation={row.original} writer={writer} />,
  },
];

export function LicensesPage() {
  const { projectId }: { projectId: string } = useParams({ strict: false });
  const search: LicensesSearch = useSearch({ strict: false });
  const navigate = useNavigate();
  const [csvError, setCsvError] = useState<unknown>(null);
  const offset = search.offset ?? 0;
  const obligationsOffset = search.obligations_offset ?? 0;
  const query = {
    limit: LIMIT,
    offset,
    ...(search.search ? { search: search.search } : {}),
    ...(search.license_category ? { license_category: search.license_category } : {}),
    ...(search.sort ? { sort: search.sort } : {}),
  };
  const licenses = useQuery({
    queryKey: ["project", projectId, "licenses", query],
    queryFn: async () =>
      dataOf(await api.GET("/v1/projects/{id}/licenses", { params: { path: { id: projectId }, query } })),
    placeholderData: (previous) => previous,
  });
  const me = useMe();
  const project = useQuery({
    queryKey: ["project", projectId],
    queryFn: async () => dataOf(await api.GET("/v1/projects/{id}", { params: { path: { id: projectId } } })),
  });
  const writer = canWrite(me.data, project.data?.team_id) && !project.data?.archived_at;
  const obligationsQuery = {
    limit: LIMIT,
    offset: obligationsOffset,
    ...(search.fulfilled ? { fulfilled: search.fulfilled === "yes" ? ("true" as const) : ("false" as const) } : {}),
  };
  const obligations = useQuery({
    queryKey: ["project", projectId, "obligations", obligationsQuery],
    queryFn: async () =>
      dataOf(
        await api.GET("/v1/projects/{id}/obligations", {
          params: { path: { id: projectId }, query: obligationsQuery },
        }),
      ),
    placeholderData: (previous) => previous,
  });
  const go = (next: LicensesSearch) =>
    void navigate({ to: "/projects/$projectId/licenses", params: { projectId }, search: { ...search, ...next } });

  if (licenses.error && !licenses.data) return <ProblemView error={licenses.error} />;
  return (
    <main>
      <p>
        <Link to="/projects/$projectId" params={{ projectId }}>
          Back to the project
        </Link>
      </p>
      <div className="heading">
        <h1>Licenses</h1>
        <button
          type="button"
          onClick={() => {
            setCsvError(null);
            download(`/v1/projects/${projectId}/licenses/export.csv`, "licenses.csv").catch(setCsvError);
          }}
        >
          Download CSV
        </button>
      </div>
      <form
        className="filters"
        role="search"
        aria-label="Filter licenses"
        onSubmit={(e) => {
          e.preventDefault();
          go({ ...filters(new FormData(e.currentTarget), ["search", "license_category"]), offset: 0 });
        }}
      >
        <label>
          Component or license
          <input name="search" type="search" defaultValue={search.search ?? ""} />
        </label>
        <AnyOf label="Category" name="license_category" words={CATEGORIES} value={search.license_category} />
        <button type="submit">Filter</button>
      </form>
      <ProblemView error={licenses.error ?? csvError} />
      <DataTable
        label="Licenses"
        columns={licenseColumns(projectId)}
        rows={licenses.data?.items}
        rowId={(l) => l.id}
        sort={search.sort}
        onSort={(sort) => go({ sort, offset: 0 })}
      />
      {licenses.data ? (
        <Pager offset={offset} limit={LIMIT} total={licenses.data.total} onOffset={(o) => go({ offset: o })} />
      ) : null}
      <div className="heading">
        <h2>Obligations</h2>
        <Link to="/projects/$projectId/notice" params={{ projectId }}>
          The notice
        </Link>
      </div>
      <form
        className="filters"
        role="search"
        aria-label="Filter obligations"
        onSubmit={(e) => {
          e.preventDefault();
          go({ ...filters(new FormData(e.currentTarget), ["fulfilled"]), obligations_offset: 0 });
        }}
      >
        <AnyOf label="Fulfilled" name="fulfilled" words={["yes", "no"]} value={search.fulfilled} />
        <button type="submit">Filter obligations</button>
      </form>
      <ProblemView error={obligations.error} />
      <DataTable
        label="Obligations"
        columns={obligationColumns(writer)}
        rows={obligations.data?.items}
        rowId={(o) => o.id}
      />
      {obligations.data ? (
        <Pager
          offset={obligationsOffset}
          limit={LIMIT}
          total={obligations.data.total}
          onOffset={(o) => go({ obligations_offset: o })}
        />
      ) : null}
    </main>
  );
}
