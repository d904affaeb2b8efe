// A project's scans beyond the overview's ten: paged by the API, filtered by status and kind.
import { useQuery } from "@tanstack/react-query";
import { Link, useNavigate, useParams, useSearch } from "@tanstack/react-router";
import type { Schemas } from "@sca/api-client";
import { AnyOf } from "../any-of.tsx";
import { filters } from "../form.ts";
import { Pager } from "../pager.tsx";
import { dataOf } from "../problem.ts";
import { ProblemView } from "../problem-view.tsx";
import { api } from "../session/session.ts";

type Scan = Schemas["Scan"];
const PAGE_SIZE = 20;
const STATUSES = ["queued", "running", "succeeded", "failed", "cancelled"] as const satisfies readonly Scan["status"][];
const KINDS = ["source", "container", "sbom"] as const satisfies readonly Scan["kind"][];

export interface ScanHistorySearch {
  status?: string;
  kind?: string;
  page?: number;
}

export function ScanHistoryPage() {
  const { projectId }: { projectId: string } = useParams({ strict: false });
  const search: ScanHistorySearch = useSearch({ strict: false });
  const navigate = useNavigate();
  const page = search.page ?? 1;
  const query = {
    page,
    page_size: PAGE_SIZE,
    ...(STATUSES.find((s) => s === search.status) ? { status: search.status as Scan["status"] } : {}),
    ...(KINDS.find((k) => k === search.kind) ? { kind: search.kind as Scan["kind"] } : {}),
  };
  const scans = useQuery({
    queryKey: ["project", projectId, "scans", query],
    queryFn: async () =>
      dataOf(await api.GET("/v1/projects/{id}/scans", { params: { path: { id: projectId }, query } })),
    placeholderData: (previous) => previous,
  });
  const go = (next: ScanHistorySearch) =>
    void navigate({ to: "/projects/$projectId/scans", params: { projectId }, search: { ...search, ...next } });

  return (
    <main>
      <p>
        <Link to="/projects/$projectId" params={{ projectId }}>
          Back to the project
        </Link>
      </p>
      <h1>Scans</h1>
      <form
        className="filters"
        role="search"
        aria-label="Filter scans"
        onSubmit={(e) => {
          e.preventDefault();
          go({ ...filters(new FormData(e.currentTarget), ["status", "kind"]), page: 1 });
        }}
      >
        <AnyOf label="Status" name="status" words={STATUSES} value={search.status} />
        <AnyOf label="Kind" name="kind" words={KINDS} value={search.kind} />
        <button type="submit">Filter</button>
      </form>
      <ProblemView error={scans.error} />
      <ScanTable projectId={projectId} scans={scans.data?.items ?? []} label="Scans" />
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

export function ScanTable({
  projectId,
  scans,
  label,
}: {
  projectId: string;
  scans: readonly Pick<Scan, "id" | "created_at" | "kind" | "status" | "ref" | "release">[];
  label: string;
}) {
  return (
    <table aria-label={label}>
      <thead>
        <tr>
          <th scope="col">Started</th>
          <th scope="col">Kind</th>
          <th scope="col">Ref</th>
          <th scope="col">Release</th>
          <th scope="col">Status</th>
        </tr>
      </thead>
      <tbody>
        {scans.map((s) => (
          <tr key={s.id}>
            <td>
              <Link to="/projects/$projectId/scans/$scanId" params={{ projectId, scanId: s.id }}>
                {new Date(s.created_at).toLocaleString()}
              </Link>
            </td>
            <td>{s.kind}</td>
            <td>{s.ref || "—"}</td>
            <td>{s.release ?? "—"}</td>
            <td>{s.status}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
