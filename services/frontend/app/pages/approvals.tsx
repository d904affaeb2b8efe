// Approval requests: the caller's teams' requests (filtered and paged by the API) and one request, decided by a second
// person (the API's team_admin or super_admin, never the requester) with If-Match of the version the page read.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useNavigate, useParams, useSearch } from "@tanstack/react-router";
import { useState, type FormEvent } from "react";
import type { Schemas } from "@sca/api-client";
import { AnyOf } from "../any-of.tsx";
import { DataTable, type Columns } from "../data-table.tsx";
import { field, filters } from "../form.ts";
import { Pager } from "../pager.tsx";
import { dataOf, ProblemError } from "../problem.ts";
import { ProblemView } from "../problem-view.tsx";
import { canAdminister, useMe } from "../session/me.ts";
import { api } from "../session/session.ts";

const PAGE_SIZE = 20;
const STATUSES = ["pending", "under_review", "approved", "rejected"] as const;
const FINAL = new Set(["approved", "rejected"]);

type Approval = Schemas["ApprovalRequest"];
export interface ApprovalsSearch {
  status?: string;
  page?: number;
}

const columns: Columns<Approval> = [
  {
    id: "component",
    header: "Component",
    cell: ({ row: { original: a } }) => (
      <Link to="/approvals/$approvalId" params={{ approvalId: a.id }}>
        {a.component_name}
      </Link>
    ),
  },
  {
    id: "project",
    header: "Project",
    cell: ({ row: { original: a } }) => (
      <Link to="/projects/$projectId" params={{ projectId: a.project_id }}>
        {a.project_name}
      </Link>
    ),
  },
  { id: "status", header: "Status", cell: ({ row }) => row.original.status },
  { id: "requested_by", header: "Asked by", cell: ({ row }) => row.original.requested_by_name ?? "—" },
  { id: "requested_at", header: "Asked at", cell: ({ row }) => new Date(row.original.requested_at).toLocaleString() },
];

export function ApprovalsPage() {
  const search: ApprovalsSearch = useSearch({ strict: false });
  const navigate = useNavigate();
  const page = search.page ?? 1;
  const query = { page, page_size: PAGE_SIZE, ...(search.status ? { status: search.status } : {}) };
  const approvals = useQuery({
    queryKey: ["approvals", query],
    queryFn: async () => dataOf(await api.GET("/v1/approvals", { params: { query } })),
    placeholderData: (previous) => previous,
  });
  const go = (next: ApprovalsSearch) => void navigate({ to: "/approvals", search: { ...search, ...next } });
  return (
    <main>
      <h1>Approvals</h1>
      <form
        className="filters"
        role="search"
        aria-label="Filter approvals"
        onSubmit={(e) => {
          e.preventDefault();
          go({ ...filters(new FormData(e.currentTarget), ["status"]), page: 1 });
        }}
      >
        <AnyOf label="Status" name="status" words={STATUSES} value={search.status} />
        <button type="submit">Filter</button>
      </form>
      <ProblemView error={approvals.error} />
      <DataTable label="Approvals" columns={columns} rows={approvals.data?.items} rowId={(a) => a.id} />
      {approvals.data ? (
        <Pager
          offset={(page - 1) * PAGE_SIZE}
          limit={PAGE_SIZE}
          total={approvals.data.total}
          onOffset={(o) => go({ page: o / PAGE_SIZE + 1 })}
        />
      ) : null}
    </main>
  );
}

/** "Ask for approval" of a component of a project: any member of the project's team may (the API's rule). */
export function AskForApproval({ projectId, componentId }: { projectId: string; componentId: string }) {
  const navigate = useNavigate();
  const ask = useMutation({
    mutationFn: async () =>
      dataOf(await api.POST("/v1/approvals", { body: { project_id: projectId, component_id: componentId } })),
    onSuccess: (a) => void navigate({ to: "/approvals/$approvalId", params: { approvalId: a.id } }),
  });
  return (
    <>
      <button type="button" disabled={ask.isPending} onClick={() => ask.mutate()}>
        Ask for approval
      </button>
      <ProblemView error={ask.error} />
    </>
  );
}

/** The request and the version its ETag names (the If-Match of the next decision). */
async function readApproval(id: string): Promise<{ approval: Approval; etag: string }> {
  const answer = await api.GET("/v1/approvals/{approval_id}", { params: { path: { approval_id: id } } });
  const approval = dataOf(answer);
  return { approval, etag: answer.response.headers.get("ETag") ?? `"${approval.version}"` };
}

export function ApprovalPage() {
  const { approvalId }: { approvalId: string } = useParams({ strict: false });
  const me = useMe();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [stale, setStale] = useState(false);
  const detail = useQuery({ queryKey: ["approval", approvalId], queryFn: () => readApproval(approvalId) });
  const decide = useMutation({
    mutationFn: async ({ action, note, etag }: { action: string; note: string; etag: string }) =>
      dataOf(
        await api.PATCH("/v1/approvals/{approval_id}/transition", {
          params: { path: { approval_id: approvalId } },
          headers: { "If-Match": etag },
          body: { action: action as "approved", decision_note: note || null },
        }),
      ),
    onSuccess: () => setStale(false),
    onError: (error) => setStale(error instanceof ProblemError && (error.status === 412 || error.status === 409)),
    // A 412 or 409 means someone else moved it: read it again so the page shows what it is now.
    onSettled: () => queryClient.invalidateQueries({ queryKey: ["approval", approvalId] }),
  });
  const withdraw = useMutation({
    mutationFn: async () =>
      dataOf(await api.DELETE("/v1/approvals/{approval_id}", { params: { path: { approval_id: approvalId } } })),
    onSuccess: () => void navigate({ to: "/approvals" }),
  });
  if (detail.error) return <ProblemView error={detail.error} />;
  if (!detail.data) return <p>Loading…</p>;
  const { approval: a, etag } = detail.data;
  const mine = a.requested_by_user_id === me.data?.id;
  const open = !FINAL.has(a.status);
  const reviewer = canAdminister(me.data, a.team_id) && !mine && open;
  const mayWithdraw = open && (mine || canAdminister(me.data, a.team_id));
  return (
    <main>
      <p>
        <Link to="/approvals">All approvals</Link>
      </p>
      <h1>Approval of {a.component_name}</h1>
      <dl className="card facts" aria-label="Approval request">
        <dt>Project</dt>
        <dd>
          <Link to="/projects/$projectId" params={{ projectId: a.project_id }}>
            {a.project_name}
          </Link>
        </dd>
        <dt>Component</dt>
        <dd>
          <Link
            to="/projects/$projectId/components/$componentId"
            params={{ projectId: a.project_id, componentId: a.component_id }}
          >
            {a.component_purl ?? a.component_name}
          </Link>
        </dd>
        <dt>Status</dt>
        <dd data-testid="approval-status">{a.status}</dd>
        <dt>Version</dt>
        <dd>{a.version}</dd>
        <dt>Asked by</dt>
        <dd>
          {a.requested_by_name ?? "—"}
          {mine ? " (you)" : ""}, {new Date(a.requested_at).toLocaleString()}
        </dd>
        {a.decided_at ? (
          <>
            <dt>Decided</dt>
            <dd>{new Date(a.decided_at).toLocaleString()}</dd>
            <dt>Note</dt>
            <dd>{a.decision_note ?? "—"}</dd>
          </>
        ) : null}
      </dl>
      {stale ? (
        <p role="status" className="card">
          Someone changed this request since you opened it: it is now {a.status} (version {a.version}). Decide again if
          you still mean it.
        </p>
      ) : null}
      <ProblemView error={decide.error ?? withdraw.error} />
      {reviewer ? (
        <form
          className="card"
          aria-label="Decide"
          onSubmit={(e: FormEvent<HTMLFormElement>) => {
            e.preventDefault();
            const submitter = (e.nativeEvent as SubmitEvent).submitter as HTMLButtonElement | null;
            decide.mutate({
              action: submitter?.value ?? "approved",
              note: field(new FormData(e.currentTarget), "note"),
              etag,
            });
          }}
        >
          <label>
            Decision note
            <textarea name="note" maxLength={4000} />
          </label>
          <div className="actions">
            <button type="submit" value="approved" disabled={decide.isPending}>
              Approve
            </button>
            <button type="submit" value="rejected" disabled={decide.isPending}>
              Decline
            </button>
            {a.status === "pending" ? (
              <button type="submit" value="under_review" disabled={decide.isPending}>
                Start review
              </button>
            ) : null}
          </div>
        </form>
      ) : null}
      {mayWithdraw ? (
        <button
          type="button"
          disabled={withdraw.isPending}
          onClick={() => {
            if (window.confirm("Withdraw this request?")) withdraw.mutate();
          }}
        >
          Withdraw the request
        </button>
      ) : null}
    </main>
  );
}
