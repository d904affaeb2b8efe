// The signed-in person's notifications: the header's bell with the unread count, and the list (paged by the API,
// unread ones on request) where each is marked read, or all at once.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useNavigate, useSearch } from "@tanstack/react-router";
import type { Schemas } from "@sca/api-client";
import { DataTable, type Columns } from "../data-table.tsx";
import { Pager } from "../pager.tsx";
import { dataOf } from "../problem.ts";
import { ProblemView } from "../problem-view.tsx";
import { api } from "../session/session.ts";

const PAGE_SIZE = 20;

export interface NotificationsSearch {
  unread?: boolean;
  page?: number;
}

/** The header's bell: a link to the list with the unread count (read once a minute and after each change). */
export function NotificationBell() {
  const unread = useQuery({
    queryKey: ["notifications", "unread-count"],
    queryFn: async () => dataOf(await api.GET("/v1/notifications/unread-count")),
    refetchInterval: 60_000,
  });
  const count = unread.data?.count ?? 0;
  return (
    <Link to="/notifications">
      Notifications
      {count > 0 ? (
        <span className="badge" aria-hidden="true">
          {count}
        </span>
      ) : null}
      <span className="sr-only">, {count} unread</span>
    </Link>
  );
}

export function NotificationsPage() {
  const search: NotificationsSearch = useSearch({ strict: false });
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const page = search.page ?? 1;
  const query = { page, page_size: PAGE_SIZE, ...(search.unread ? { unread_only: "true" as const } : {}) };
  const list = useQuery({
    queryKey: ["notifications", "list", query],
    queryFn: async () => dataOf(await api.GET("/v1/notifications", { params: { query } })),
    placeholderData: (previous) => previous,
  });
  const changed = () => queryClient.invalidateQueries({ queryKey: ["notifications"] });
  const read = useMutation({
    mutationFn: async (id: string) =>
      dataOf(await api.PATCH("/v1/notifications/{id}/read", { params: { path: { id } } })),
    onSuccess: changed,
  });
  const readAll = useMutation({
    mutationFn: async () => dataOf(await api.PATCH("/v1/notifications/read-all")),
    onSuccess: changed,
  });
  const go = (next: NotificationsSearch) => void navigate({ to: "/notifications", search: { ...search, ...next } });
  const columns: Columns<Schemas["Notification"]> = [
    {
      id: "title",
      header: "Notification",
      cell: ({ row: { original: n } }) => (
        <>
          <strong>{n.is_read ? n.title : `● ${n.title}`}</strong>
          <div>{n.body}</div>
          {n.link ? <a href={n.link}>Open</a> : null}
        </>
      ),
    },
    { id: "severity", header: "Severity", cell: ({ row }) => row.original.severity ?? "—" },
    { id: "when", header: "When", cell: ({ row }) => new Date(row.original.created_at).toLocaleString() },
    {
      id: "read",
      header: "Read",
      cell: ({ row: { original: n } }) =>
        n.is_read ? (
          "read"
        ) : (
          <button type="button" onClick={() => read.mutate(n.id)} aria-label={`Mark read: ${n.title}`}>
            Mark read
          </button>
        ),
    },
  ];
  const total = list.data?.total ?? 0;
  return (
    <main>
      <div className="heading">
        <h1>Notifications</h1>
        <Link to="/account/notifications">Preferences and routing</Link>
        <button type="button" onClick={() => readAll.mutate()} disabled={!list.data?.unread_count}>
          Mark all read
        </button>
      </div>
      <label className="inline">
        <input
          type="checkbox"
          checked={!!search.unread}
          onChange={(e) => go({ unread: e.target.checked || undefined, page: 1 })}
        />
        Unread only
      </label>
      <ProblemView error={list.error ?? read.error ?? readAll.error} />
      <p className="muted">{list.data ? `${total} notifications, ${list.data.unread_count} unread` : "Loading…"}</p>
      <DataTable label="Notifications" columns={columns} rows={list.data?.items} rowId={(n) => n.id} />
      <Pager
        offset={(page - 1) * PAGE_SIZE}
        limit={PAGE_SIZE}
        total={total}
        onOffset={(offset) => go({ page: offset / PAGE_SIZE + 1 })}
      />
    </main>
  );
}
