// The super_admin's registry and tracker logins of an organization: listed (the API never answers a password or
// token), added or replaced (one login per host: the API replaces a host's), removed. The secret fields are
// password inputs, emptied once sent, and never filled from an answer.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useNavigate, useSearch } from "@tanstack/react-router";
import type { FormEvent } from "react";
import type { Schemas } from "@sca/api-client";
import { DataTable, type Columns } from "../data-table.tsx";
import { field } from "../form.ts";
import { dataOf } from "../problem.ts";
import { ProblemView } from "../problem-view.tsx";
import { api } from "../session/session.ts";
import { useOrganizations } from "./admin-teams.tsx";

export interface AdminCredentialsSearch {
  organization?: string;
}

const when = (iso: string) => new Date(iso).toLocaleString();

function Credentials({ organizationId }: { organizationId: string }) {
  const queryClient = useQueryClient();
  const path = { organization_id: organizationId };
  const registries = useQuery({
    queryKey: ["admin", "registry-credentials", organizationId],
    queryFn: async () =>
      dataOf(await api.GET("/v1/admin/organizations/{organization_id}/registry-credentials", { params: { path } })),
  });
  const trackers = useQuery({
    queryKey: ["admin", "tracker-credentials", organizationId],
    queryFn: async () =>
      dataOf(await api.GET("/v1/admin/organizations/{organization_id}/tracker-credentials", { params: { path } })),
  });
  const changed = () => queryClient.invalidateQueries({ queryKey: ["admin"] });
  const addRegistry = useMutation({
    mutationFn: async (form: FormData) =>
      dataOf(
        await api.PUT("/v1/admin/organizations/{organization_id}/registry-credentials", {
          params: { path },
          body: {
            registry_host: field(form, "registry_host"),
            username: field(form, "username"),
            password: field(form, "password"),
            allowed: form.get("allowed") === "on",
          },
        }),
      ),
    onSuccess: changed,
  });
  const addTracker = useMutation({
    mutationFn: async (form: FormData) =>
      dataOf(
        await api.PUT("/v1/admin/organizations/{organization_id}/tracker-credentials", {
          params: { path },
          body: {
            host: field(form, "host"),
            username: field(form, "username"),
            api_token: field(form, "api_token"),
            auth_scheme: "tracker_basic",
          },
        }),
      ),
    onSuccess: changed,
  });
  const remove = useMutation({
    mutationFn: async ({ kind, id }: { kind: "registry" | "tracker"; id: string }) =>
      dataOf(
        await (kind === "registry"
          ? api.DELETE("/v1/admin/organizations/{organization_id}/registry-credentials/{credential_id}", {
              params: { path: { ...path, credential_id: id } },
            })
          : api.DELETE("/v1/admin/organizations/{organization_id}/tracker-credentials/{credential_id}", {
              params: { path: { ...path, credential_id: id } },
            })),
      ),
    onSuccess: changed,
  });
  const removeButton = (kind: "registry" | "tracker", id: string, host: string) => (
    <button
      type="button"
      className="danger"
      onClick={() => {
        if (window.confirm(`Remove the login for ${host}?`)) remove.mutate({ kind, id });
      }}
    >
      Remove {host}
    </button>
  );
  const registryColumns: Columns<Schemas["RegistryCredential"]> = [
    { id: "host", header: "Registry", cell: ({ row }) => row.original.registry_host },
    { id: "username", header: "User name", cell: ({ row }) => row.original.username },
    { id: "allowed", header: "Used for pulls", cell: ({ row }) => (row.original.allowed ? "yes" : "no") },
    { id: "updated", header: "Changed", cell: ({ row }) => when(row.original.updated_at) },
    {
      id: "actions",
      header: "Actions",
      cell: ({ row }) => removeButton("registry", row.original.id, row.original.registry_host),
    },
  ];
  const trackerColumns: Columns<Schemas["TrackerCredential"]> = [
    { id: "host", header: "Tracker", cell: ({ row }) => row.original.host },
    { id: "username", header: "User name", cell: ({ row }) => row.original.username },
    { id: "scheme", header: "Scheme", cell: ({ row }) => row.original.auth_scheme },
    { id: "updated", header: "Changed", cell: ({ row }) => when(row.original.updated_at) },
    {
      id: "actions",
      header: "Actions",
      cell: ({ row }) => removeButton("tracker", row.original.id, row.original.host),
    },
  ];
  // Emptied once sent: the secret is not kept in the page.
  const submit = (mutation: typeof addRegistry | typeof addTracker) => (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    mutation.mutate(new FormData(form), { onSuccess: () => form.reset() });
  };
  return (
    <>
      <ProblemView error={registries.error ?? trackers.error ?? remove.error} />
      <h2>Container registries</h2>
      <DataTable label="Registry logins" columns={registryColumns} rows={registries.data?.items} rowId={(c) => c.id} />
      <form className="card" aria-label="Add registry login" onSubmit={submit(addRegistry)}>
        <label>
          Registry host
          <input name="registry_host" required placeholder="registry.example.com:5000" />
        </label>
        <label>
          User name
          <input name="username" required autoComplete="off" />
        </label>
        <label>
          Password
          <input name="password" type="password" required autoComplete="new-password" />
        </label>
        <label>
          <input name="allowed" type="checkbox" defaultChecked /> Used for pulls
        </label>
        <button type="submit">Save registry login</button>
        <ProblemView error={addRegistry.error} />
      </form>
      <h2>Ticket trackers</h2>
      <DataTable label="Tracker logins" columns={trackerColumns} rows={trackers.data?.items} rowId={(c) => c.id} />
      <form className="card" aria-label="Add tracker login" onSubmit={submit(addTracker)}>
        <label>
          Tracker host
          <input name="host" required placeholder="tracker.example.com" />
        </label>
        <label>
          User name
          <input name="username" required autoComplete="off" />
        </label>
        <label>
          API token
          <input name="api_token" type="password" required autoComplete="new-password" />
        </label>
        <button type="submit">Save tracker login</button>
        <ProblemView error={addTracker.error} />
      </form>
    </>
  );
}

export function AdminCredentialsPage() {
  const search: AdminCredentialsSearch = useSearch({ strict: false });
  const navigate = useNavigate();
  const organizations = useOrganizations();
  if (organizations.error) return <ProblemView error={organizations.error} />;
  const items = organizations.data?.items ?? [];
  const organization = search.organization ?? items[0]?.id;
  return (
    <main>
      <h1>Registry and tracker logins</h1>
      <label>
        Organization
        <select
          value={organization ?? ""}
          onChange={(e) => void navigate({ to: "/admin/credentials", search: { organization: e.target.value } })}
        >
          {items.map((o) => (
            <option key={o.id} value={o.id}>
              {o.name}
            </option>
          ))}
        </select>
      </label>
      {organization ? <Credentials key={organization} organizationId={organization} /> : null}
    </main>
  );
}
