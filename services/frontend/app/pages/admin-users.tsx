// The super_admin's list of people: searched and filtered by the API, 50 a page; each person deactivated or activated
// again, unlocked after too many failed sign-ins, their second factor cleared (for one who lost it) and a password-reset
// link sent (after a confirmation), their role set (admin-user-role.tsx). Anyone else gets the API's 404 as the not-found page.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useNavigate, useSearch } from "@tanstack/react-router";
import { useState } from "react";
import type { paths } from "@sca/api-client";
import { DataTable, type Columns } from "../data-table.tsx";
import { filters } from "../form.ts";
import { Pager } from "../pager.tsx";
import { dataOf } from "../problem.ts";
import { ProblemView } from "../problem-view.tsx";
import { api } from "../session/session.ts";
import { UserRoleForm } from "./admin-user-role.tsx";

const PAGE_SIZE = 50;
type User = paths["/v1/admin/users"]["get"]["responses"][200]["content"]["application/json"]["items"][number];

export interface AdminUsersSearch {
  q?: string;
  is_active?: string;
  page?: number;
}

export function AdminUsersPage() {
  const search: AdminUsersSearch = useSearch({ strict: false });
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [roleOf, setRoleOf] = useState<User>();
  const page = search.page ?? 1;
  const active: "true" | "false" | undefined =
    search.is_active === "true" ? "true" : search.is_active === "false" ? "false" : undefined;
  const query = {
    page,
    page_size: PAGE_SIZE,
    ...(search.q ? { q: search.q } : {}),
    ...(active ? { is_active: active } : {}),
  };
  const users = useQuery({
    queryKey: ["admin", "users", query],
    queryFn: async () => dataOf(await api.GET("/v1/admin/users", { params: { query } })),
    placeholderData: (previous) => previous,
  });
  const changed = () => queryClient.invalidateQueries({ queryKey: ["admin", "users"] });
  const activation = useMutation({
    mutationFn: async ({ id, active }: { id: string; active: boolean }) =>
      dataOf(
        active
          ? await api.PATCH("/v1/admin/users/{id}/activate", { params: { path: { id } } })
          : await api.PATCH("/v1/admin/users/{id}/deactivate", { params: { path: { id } } }),
      ),
    onSuccess: changed,
  });
  const unlock = useMutation({
    mutationFn: async (id: string) =>
      dataOf(await api.POST("/v1/admin/users/{id}/unlock-sign-in", { params: { path: { id } } })),
    onSuccess: changed,
  });
  const clearMfa = useMutation({
    mutationFn: async (u: User) => {
      dataOf(await api.DELETE("/v1/admin/users/{id}/mfa", { params: { path: { id: u.id } } }));
      return u.email;
    },
    onSuccess: changed,
  });
  const passwordReset = useMutation({
    mutationFn: async (u: User) => {
      dataOf(await api.POST("/v1/admin/users/{id}/password-reset", { params: { path: { id: u.id } } }));
      return u.email;
    },
  });
  const go = (next: AdminUsersSearch) => void navigate({ to: "/admin/users", search: { ...search, ...next } });
  const columns: Columns<User> = [
    { id: "email", header: "E-mail", cell: ({ row }) => row.original.email },
    { id: "name", header: "Name", cell: ({ row }) => row.original.full_name ?? "—" },
    {
      id: "teams",
      header: "Teams",
      cell: ({ row }) => row.original.memberships.map((m) => `${m.team_name} (${m.role})`).join(", ") || "—",
    },
    { id: "active", header: "Active", cell: ({ row }) => (row.original.is_active ? "yes" : "no") },
    { id: "mfa", header: "Second factor", cell: ({ row }) => (row.original.mfa_enabled ? "on" : "off") },
    {
      id: "login",
      header: "Last sign-in",
      cell: ({ row }) => (row.original.last_login_at ? new Date(row.original.last_login_at).toLocaleString() : "never"),
    },
    { id: "super", header: "Super admin", cell: ({ row }) => (row.original.is_superuser ? "yes" : "no") },
    {
      id: "actions",
      header: "Actions",
      cell: ({ row: { original: u } }) => (
        <div className="actions">
          <button
            type="button"
            className={u.is_active ? "danger" : undefined}
            onClick={() => activation.mutate({ id: u.id, active: !u.is_active })}
          >
            {u.is_active ? `Deactivate ${u.email}` : `Activate ${u.email}`}
          </button>
          <button type="button" onClick={() => setRoleOf(u)}>
            Set role of {u.email}
          </button>
          <button type="button" onClick={() => unlock.mutate(u.id)}>
            Unlock sign-in of {u.email}
          </button>
          {u.mfa_enabled ? (
            <button
              type="button"
              className="danger"
              onClick={() => {
                if (window.confirm(`Clear the second factor of ${u.email}? They sign in with the password alone.`))
                  clearMfa.mutate(u);
              }}
            >
              Clear second factor of {u.email}
            </button>
          ) : null}
          <button
            type="button"
            onClick={() => {
              if (window.confirm(`Send ${u.email} a link to set a new password?`)) passwordReset.mutate(u);
            }}
          >
            Send password reset to {u.email}
          </button>
        </div>
      ),
    },
  ];
  if (users.error && !users.data) return <ProblemView error={users.error} />;
  return (
    <main>
      <h1>Users</h1>
      <form
        className="filters"
        role="search"
        aria-label="Filter users"
        onSubmit={(e) => {
          e.preventDefault();
          go({ ...filters(new FormData(e.currentTarget), ["q", "is_active"]), page: 1 });
        }}
      >
        <label>
          E-mail or name
          <input name="q" type="search" defaultValue={search.q ?? ""} />
        </label>
        <label>
          Active
          <select name="is_active" defaultValue={search.is_active ?? ""}>
            <option value="">any</option>
            <option value="true">active</option>
            <option value="false">deactivated</option>
          </select>
        </label>
        <button type="submit">Filter</button>
      </form>
      <ProblemView error={users.error ?? activation.error ?? unlock.error ?? clearMfa.error ?? passwordReset.error} />
      {unlock.isSuccess ? <p role="status">Sign-in unlocked.</p> : null}
      {clearMfa.data ? <p role="status">Second factor of {clearMfa.data} cleared.</p> : null}
      {passwordReset.data ? <p role="status">Password-reset link sent to {passwordReset.data}.</p> : null}
      {roleOf ? <UserRoleForm key={roleOf.id} user={roleOf} /> : null}
      <DataTable label="Users" columns={columns} rows={users.data?.items} rowId={(u) => u.id} />
      {users.data ? (
        <Pager
          offset={(page - 1) * PAGE_SIZE}
          limit={PAGE_SIZE}
          total={users.data.total}
          onOffset={(offset) => go({ page: offset / PAGE_SIZE + 1 })}
        />
      ) : null}
    </main>
  );
}
