// The super_admin's scan queue: every team's scans, newest first, 50 a page, by status, kind and project; a queued or
// running scan cancelled. Anyone else gets the API's 404 as the not-found page.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useNavigate, useSearch } from "@tanstack/react-router";
import type { Schemas } from "@sca/api-client";
import { AnyOf } from "../any-of.tsx";
import { DataTable, type Columns } from "../data-table.tsx";
import { filters } from "../form.ts";
import { Pager } from "../pager.tsx";
import { dataOf } from "../problem.ts";
import { ProblemView } from "../problem-view.tsx";
import { api } from "../session/session.ts";

const PAGE_SIZE = 50;
type Scan = Schemas["Scan"];
const STATUSES = ["queued", "running", "succeeded", "failed", "cancelled"] as const satisfies readonly Scan["status"][];
const KINDS = ["source", "container", "sbom"] as const satisfies readonly Scan["kind"][];

export interface AdminScansSearch {
  status?: string;
  kind?: string;
  project?: string;
  page?: number;
}

export function AdminScansPage() {
  const search: AdminScansSearch = useSearch({ strict: false });
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const page = search.page ?? 1;
  const query = {
    page,
    page_size: PAGE_SIZE,
    ...(STATUSES.find((s) => s === search.status) ? { status: search.status as Scan["status"] } : {}),
    ...(KINDS.find((k) => k === search.kind) ? { kind: search.kind as Scan["kind"] } : {}),
    ...(search.project ? { project: search.project } : {}),
  };
  const scans = useQuery({
    queryKey: ["admin", "scans", query],
    queryFn: async () => dataOf(await api.GET("/v1/admin/scans", { params: { query } })),
    placeholderData: (previous) => previous,
  });
  const cancel = useMutation({
    mutationFn: async (id: string) =>
      dataOf(await api.POST("/v1/admin/scans/{scan_id}/cancel", { params: { path: { scan_id: id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["admin", "scans"] }),
  });
  const go = (next: AdminScansSearch) => void navigate({ to: "/admin/scans", search: { ...search, ...next } });
  const columns: Columns<Scan> = [
    {
      id: "project",
      header: "Project",
      cell: ({ row: { original: s } }) => (
        <Link to="/projects/$projectId/scans/$scanId" params={{ projectId: s.project_id, scanId: s.id }}>
          {s.project_name}
        </Link>
      ),
    },
    { id: "kind", header: "Kind", cell: ({ row }) => row.original.kind },
    { id: "status", header: "Status", cell: ({ row }) => row.original.status },
    {
      id: "step",
      header: "Step",
      cell: ({ row }) => `${row.original.current_step} (${row.original.progress_percent} %)`,
    },
    { id: "created", header: "Queued", cell: ({ row }) => new Date(row.original.created_at).toLocaleString() },
    {
      id: "cancel",
      header: "Cancel",
      cell: ({ row: { original: s } }) =>
        s.status === "queued" || s.status === "running" ? (
          <button type="button" className="danger" onClick={() => cancel.mutate(s.id)}>
            Cancel the scan of {s.project_name}
          </button>
        ) : null,
    },
  ];
  if (scans.error && !scans.data) return <ProblemView error={scans.error} />;
  return (
    <main>
      <h1>Scan queue</h1>
      <form
        className="filters"
        role="search"
        aria-label="Filter scans"
        onSubmit={(e) => {
          e.preventDefault();
          go({ ...filters(new FormData(e.currentTarget), ["status", "kind", "project"]), page: 1 });
        }}
      >
        <AnyOf label="Status" name="status" words={STATUSES} value={search.status} />
        <AnyOf label="Kind" name="kind" words={KINDS} value={search.kind} />
        <label>
          Project
          <input name="project" type="search" defaultValue={search.project ?? ""} />
        </label>
        <button type="submit">Filter</button>
      </form>
      <ProblemView error={scans.error ?? cancel.error} />
      <DataTable label="Scan queue" columns={columns} rows={scans.data?.items} rowId={(s) => s.id} />
      {scans.data ? (
        <Pager
          offset={(page - 1) * PAGE_SIZE}
          limit={PAGE_SIZE}
          total={scans.data.total}
          onOffset={(offset) => go({ page: offset / PAGE_SIZE + 1 })}
        />
      ) : null}
    </main>
  );
}
