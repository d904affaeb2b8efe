// The super_admin's audit search: the API's filters (text, action or an `action.*` prefix, target table, a time
// range), newest first, 50 a page, and the CSV of the same search. Anyone else gets the API's 404 as the not-found
// page.
import { useQuery } from "@tanstack/react-query";
import { useNavigate, useSearch } from "@tanstack/react-router";
import { useState } from "react";
import type { Schemas } from "@sca/api-client";
import { DataTable, type Columns } from "../data-table.tsx";
import { download } from "../download.ts";
import { filters } from "../form.ts";
import { Pager } from "../pager.tsx";
import { dataOf } from "../problem.ts";
import { ProblemView } from "../problem-view.tsx";
import { api } from "../session/session.ts";

const PAGE_SIZE = 50;

export interface AdminAuditSearch {
  q?: string;
  action?: string;
  target_table?: string;
  from?: string;
  to?: string;
  page?: number;
}

const columns: Columns<Schemas["AuditEntry"]> = [
  { id: "when", header: "When", cell: ({ row }) => new Date(row.original.occurred_at).toLocaleString() },
  { id: "action", header: "Action", cell: ({ row }) => row.original.action },
  { id: "outcome", header: "Outcome", cell: ({ row }) => row.original.outcome },
  { id: "actor", header: "Actor", cell: ({ row }) => row.original.actor_email ?? row.original.actor_api_key_id ?? "—" },
  {
    id: "target",
    header: "Target",
    cell: ({ row }) =>
      row.original.target_table ? `${row.original.target_table} ${row.original.target_id ?? ""}`.trim() : "—",
  },
  { id: "ip", header: "Address", cell: ({ row }) => row.original.client_ip ?? "—" },
];

/** A datetime-local field's value as RFC 3339 (the API's from and to), in the browser's time zone. */
const instant = (local: string | undefined) => (local ? new Date(local).toISOString() : undefined);

export function AdminAuditPage() {
  const search: AdminAuditSearch = useSearch({ strict: false });
  const navigate = useNavigate();
  const [csvError, setCsvError] = useState<unknown>(null);
  const page = search.page ?? 1;
  const filter = {
    ...(search.q ? { q: search.q } : {}),
    ...(search.action ? { action: search.action } : {}),
    ...(search.target_table ? { target_table: search.target_table } : {}),
    ...(search.from ? { from: instant(search.from) } : {}),
    ...(search.to ? { to: instant(search.to) } : {}),
  };
  const query = { page, page_size: PAGE_SIZE, ...filter };
  const entries = useQuery({
    queryKey: ["admin", "audit", query],
    queryFn: async () => dataOf(await api.GET("/v1/admin/audit", { params: { query } })),
    placeholderData: (previous) => previous,
  });
  const go = (next: AdminAuditSearch) => void navigate({ to: "/admin/audit", search: { ...search, ...next } });
  if (entries.error && !entries.data) return <ProblemView error={entries.error} />;
  return (
    <main>
      <div className="heading">
        <h1>Audit</h1>
        <button
          type="button"
          onClick={() => {
            setCsvError(null);
            const params = new URLSearchParams(filter);
            download(`/v1/admin/audit/export.csv?${params.toString()}`, "audit.csv").catch(setCsvError);
          }}
        >
          Download CSV
        </button>
      </div>
      <form
        className="filters"
        role="search"
        aria-label="Filter the audit log"
        onSubmit={(e) => {
          e.preventDefault();
          go({ ...filters(new FormData(e.currentTarget), ["q", "action", "target_table", "from", "to"]), page: 1 });
        }}
      >
        <label>
          Text
          <input name="q" type="search" defaultValue={search.q ?? ""} />
        </label>
        <label>
          Action (or a prefix such as api_key.*)
          <input name="action" defaultValue={search.action ?? ""} />
        </label>
        <label>
          Target table
          <input name="target_table" defaultValue={search.target_table ?? ""} />
        </label>
        <label>
          From
          <input name="from" type="datetime-local" defaultValue={search.from ?? ""} />
        </label>
        <label>
          Until
          <input name="to" type="datetime-local" defaultValue={search.to ?? ""} />
        </label>
        <button type="submit">Filter</button>
      </form>
      <ProblemView error={entries.error ?? csvError} />
      <DataTable label="Audit entries" columns={columns} rows={entries.data?.items} rowId={(a) => a.id} />
      {entries.data ? (
        <Pager
          offset={(page - 1) * PAGE_SIZE}
          limit={PAGE_SIZE}
          total={entries.data.total}
          onOffset={(offset) => go({ page: offset / PAGE_SIZE + 1 })}
        />
      ) : null}
    </main>
  );
}
