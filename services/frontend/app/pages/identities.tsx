// The signed-in person's linked SSO identities: each provider account that signs them in, and "Unlink" (after a
// confirmation). The API refuses to unlink the only way left to sign in (409 last-oauth-link), shown as its problem.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { Schemas } from "@sca/api-client";
import { DataTable, type Columns } from "../data-table.tsx";
import { dataOf } from "../problem.ts";
import { ProblemView } from "../problem-view.tsx";
import { api } from "../session/session.ts";

export function IdentitiesPage() {
  const queryClient = useQueryClient();
  const identities = useQuery({
    queryKey: ["oauth-identities"],
    queryFn: async () => dataOf(await api.GET("/v1/users/me/oauth-identities")),
  });
  const unlink = useMutation({
    mutationFn: async (id: string) =>
      dataOf(
        await api.DELETE("/v1/users/me/oauth-identities/{identity_id}", { params: { path: { identity_id: id } } }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["oauth-identities"] }),
  });
  const columns: Columns<Schemas["LinkedIdentity"]> = [
    { id: "provider", header: "Provider", cell: ({ row }) => row.original.provider },
    { id: "email", header: "E-mail at the provider", cell: ({ row }) => row.original.email ?? "—" },
    { id: "subject", header: "Account id", cell: ({ row }) => <code>{row.original.subject}</code> },
    { id: "linked", header: "Linked", cell: ({ row }) => new Date(row.original.created_at).toLocaleString() },
    {
      id: "used",
      header: "Last sign-in",
      cell: ({ row }) => (row.original.last_used_at ? new Date(row.original.last_used_at).toLocaleString() : "never"),
    },
    {
      id: "unlink",
      header: "Unlink",
      cell: ({ row: { original: i } }) => (
        <button
          type="button"
          className="danger"
          aria-label={`Unlink ${i.provider} ${i.email ?? i.subject}`}
          onClick={() => {
            if (window.confirm(`Unlink ${i.provider}? It no longer signs you in.`)) unlink.mutate(i.id);
          }}
        >
          Unlink
        </button>
      ),
    },
  ];
  const items = identities.data?.items;
  return (
    <main>
      <h1>Sign-in identities</h1>
      <p className="muted">The single sign-on accounts linked to you. Signing in through a provider links it.</p>
      <ProblemView error={identities.error ?? unlink.error} />
      {items && !items.length ? <p data-testid="no-identities">No single sign-on account is linked to you.</p> : null}
      {items?.length ? (
        <DataTable label="Linked identities" columns={columns} rows={items} rowId={(i) => i.id} />
      ) : null}
    </main>
  );
}
