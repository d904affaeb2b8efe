// Organization verdicts: the organization's rulings on components (filtered and paged by the API); its writers (a
// super_admin, a group_admin of one of its teams) start a ruling and move one, with If-Match of the version shown.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useNavigate, useSearch } from "@tanstack/react-router";
import type { FormEvent } from "react";
import type { Schemas } from "@sca/api-client";
import { AnyOf } from "../any-of.tsx";
import { DataTable, type Columns } from "../data-table.tsx";
import { field, filters } from "../form.ts";
import { Pager } from "../pager.tsx";
import { dataOf } from "../problem.ts";
import { ProblemView } from "../problem-view.tsx";
import { useMe, type Me } from "../session/me.ts";
import { api } from "../session/session.ts";
import { OrganizationChoice, useOrganizations } from "./governance-scope.tsx";

const PAGE_SIZE = 20;
const STATUSES = ["under_review", "approved", "rejected"] as const;
type Verdict = Schemas["OrganizationVerdict"];

export interface VerdictsSearch {
  organization_id?: string;
  status?: string;
  page?: number;
}

/** The API's writers of an organization's rulings. */
function writesVerdicts(me: Me | undefined, organizationId: string): boolean {
  if (!me) return false;
  return (
    me.is_superuser || me.memberships.some((m) => m.organization_id === organizationId && m.role === "group_admin")
  );
}

function Move({ verdict }: { verdict: Verdict }) {
  const queryClient = useQueryClient();
  const move = useMutation({
    mutationFn: async (form: FormData) =>
      dataOf(
        await api.PATCH("/v1/organizations/{organization_id}/verdicts/{verdict_id}", {
          params: { path: { organization_id: verdict.organization_id, verdict_id: verdict.id } },
          headers: { "If-Match": `"${verdict.version}"` },
          body: { status: field(form, "status") as Verdict["status"], note: field(form, "note") || null },
        }),
      ),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ["verdicts"] }),
  });
  return (
    <form
      className="filters"
      aria-label={`Move the ruling on ${verdict.component_id}`}
      onSubmit={(e: FormEvent<HTMLFormElement>) => {
        e.preventDefault();
        move.mutate(new FormData(e.currentTarget));
      }}
    >
      <label>
        To
        <select name="status" defaultValue={verdict.status === "approved" ? "rejected" : "approved"}>
          {STATUSES.filter((s) => s !== verdict.status).map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
      </label>
      <label>
        Note
        <input name="note" maxLength={4000} defaultValue={verdict.decision_note ?? ""} />
      </label>
      <button type="submit" disabled={move.isPending}>
        Move
      </button>
      <ProblemView error={move.error} />
    </form>
  );
}

export function OrganizationVerdictsPage() {
  const search: VerdictsSearch = useSearch({ strict: false });
  const navigate = useNavigate();
  const me = useMe();
  const organizations = useOrganizations();
  const queryClient = useQueryClient();
  const organizationId = search.organization_id ?? organizations.data?.[0]?.id;
  const page = search.page ?? 1;
  const query = { page, page_size: PAGE_SIZE, ...(search.status ? { status: search.status } : {}) };
  const verdicts = useQuery({
    queryKey: ["verdicts", organizationId, query],
    enabled: organizationId !== undefined,
    queryFn: async () =>
      dataOf(
        await api.GET("/v1/organizations/{organization_id}/verdicts", {
          params: { path: { organization_id: organizationId! }, query },
        }),
      ),
    placeholderData: (previous) => previous,
  });
  const start = useMutation({
    mutationFn: async (form: FormData) =>
      dataOf(
        await api.POST("/v1/organizations/{organization_id}/verdicts", {
          params: { path: { organization_id: organizationId! } },
          body: { component_id: field(form, "component_id").trim(), justification: field(form, "justification") },
        }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["verdicts"] }),
  });
  const go = (next: VerdictsSearch) => void navigate({ to: "/verdicts", search: { ...search, ...next } });
  const writer = organizationId !== undefined && writesVerdicts(me.data, organizationId);
  const columns: Columns<Verdict> = [
    { id: "component", header: "Component", cell: ({ row }) => <code>{row.original.component_id}</code> },
    { id: "status", header: "Status", cell: ({ row }) => row.original.status },
    { id: "justification", header: "Published reason", cell: ({ row }) => row.original.justification },
    {
      id: "decided",
      header: "Decided",
      cell: ({ row }) => (row.original.decided_at ? new Date(row.original.decided_at).toLocaleString() : "—"),
    },
    ...(writer
      ? ([
          { id: "note", header: "Deliberation", cell: ({ row }) => row.original.decision_note ?? "—" },
          { id: "move", header: "Move", cell: ({ row }) => <Move verdict={row.original} /> },
        ] satisfies Columns<Verdict>)
      : []),
  ];
  return (
    <main>
      <h1>Organization verdicts</h1>
      <ProblemView error={organizations.error} />
      {organizations.data && !organizations.data.length ? <p>You belong to no organization.</p> : null}
      <form
        className="filters"
        role="search"
        aria-label="Filter verdicts"
        onSubmit={(e) => {
          e.preventDefault();
          go({ ...filters(new FormData(e.currentTarget), ["organization_id", "status"]), page: 1 });
        }}
      >
        <OrganizationChoice organizations={organizations.data} value={organizationId} />
        <AnyOf label="Status" name="status" words={STATUSES} value={search.status} />
        <button type="submit">Filter</button>
      </form>
      {writer ? (
        <form
          className="card"
          aria-label="Start a ruling"
          onSubmit={(e: FormEvent<HTMLFormElement>) => {
            e.preventDefault();
            start.mutate(new FormData(e.currentTarget));
          }}
        >
          <h2>Start a ruling</h2>
          <label>
            Component id (from a project's components)
            <input name="component_id" required />
          </label>
          <label>
            Published reason (at least 10 characters, shown to every member)
            <textarea name="justification" required minLength={10} maxLength={4000} />
          </label>
          <button type="submit" disabled={start.isPending}>
            Start the ruling
          </button>
          <ProblemView error={start.error} />
        </form>
      ) : null}
      <ProblemView error={verdicts.error} />
      <DataTable label="Organization verdicts" columns={columns} rows={verdicts.data?.items} rowId={(v) => v.id} />
      {verdicts.data ? (
        <Pager
          offset={(page - 1) * PAGE_SIZE}
          limit={PAGE_SIZE}
          total={verdicts.data.total}
          onOffset={(o) => go({ page: o / PAGE_SIZE + 1 })}
        />
      ) : null}
    </main>
  );
}
