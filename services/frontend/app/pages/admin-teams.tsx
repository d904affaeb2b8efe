// The super_admin's organizations and teams: the organizations (read: the API creates none), the teams searched and
// paged by the API with where each sits in the hierarchy, and a new team (in an organization, under a parent team).
// Anyone else gets the API's 404 as the not-found page.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useNavigate, useSearch } from "@tanstack/react-router";
import type { Schemas } from "@sca/api-client";
import { DataTable, type Columns } from "../data-table.tsx";
import { field, filters } from "../form.ts";
import { Pager } from "../pager.tsx";
import { dataOf } from "../problem.ts";
import { ProblemView } from "../problem-view.tsx";
import { api } from "../session/session.ts";

const PAGE_SIZE = 50;
/** The API's largest page: the parents a form offers are the first 200 teams. */
export const TEAM_CHOICES = 200;

export interface AdminTeamsSearch {
  search?: string;
  page?: number;
}

/** Every team's name by id among the first TEAM_CHOICES, for naming parents and offering them in forms. */
export function useTeamChoices() {
  return useQuery({
    queryKey: ["admin", "teams", "choices"],
    queryFn: async () =>
      dataOf(await api.GET("/v1/admin/teams", { params: { query: { page: 1, page_size: TEAM_CHOICES } } })).items,
  });
}

/** The organizations, oldest first: the first 200 (a deployment has a few). */
export function useOrganizations() {
  return useQuery({
    queryKey: ["admin", "organizations"],
    queryFn: async () =>
      dataOf(await api.GET("/v1/admin/organizations", { params: { query: { page: 1, page_size: 200 } } })),
  });
}

export function AdminTeamsPage() {
  const search: AdminTeamsSearch = useSearch({ strict: false });
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const page = search.page ?? 1;
  const query = { page, page_size: PAGE_SIZE, ...(search.search ? { search: search.search } : {}) };
  const teams = useQuery({
    queryKey: ["admin", "teams", query],
    queryFn: async () => dataOf(await api.GET("/v1/admin/teams", { params: { query } })),
    placeholderData: (previous) => previous,
  });
  const organizations = useOrganizations();
  const choices = useTeamChoices();
  const create = useMutation({
    mutationFn: async (form: FormData) =>
      dataOf(
        await api.POST("/v1/admin/teams", {
          body: {
            name: field(form, "name"),
            slug: field(form, "slug"),
            description: field(form, "description") || null,
            organization_id: field(form, "organization_id") || null,
            parent_group_id: field(form, "parent_group_id") || null,
          },
        }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["admin", "teams"] }),
  });
  const go = (next: AdminTeamsSearch) => void navigate({ to: "/admin/teams", search: { ...search, ...next } });
  const nameOf = (id: string | null | undefined) =>
    id ? (choices.data?.find((t) => t.id === id)?.name ?? id) : "— (top level)";
  const orgName = (id: string | null | undefined) =>
    id ? (organizations.data?.items.find((o) => o.id === id)?.name ?? id) : "—";
  const columns: Columns<Schemas["Team"]> = [
    {
      id: "name",
      header: "Team",
      cell: ({ row }) => (
        <Link to="/admin/teams/$teamId" params={{ teamId: row.original.id }}>
          {row.original.name}
        </Link>
      ),
    },
    { id: "slug", header: "Slug", cell: ({ row }) => row.original.slug },
    { id: "organization", header: "Organization", cell: ({ row }) => orgName(row.original.organization_id) },
    { id: "parent", header: "Parent team", cell: ({ row }) => nameOf(row.original.parent_group_id) },
    { id: "members", header: "Members", cell: ({ row }) => row.original.members.length },
    { id: "projects", header: "Projects", cell: ({ row }) => row.original.project_count },
  ];
  const orgColumns: Columns<Schemas["Organization"]> = [
    { id: "name", header: "Organization", cell: ({ row }) => row.original.name },
    { id: "slug", header: "Slug", cell: ({ row }) => row.original.slug },
    { id: "created", header: "Created", cell: ({ row }) => new Date(row.original.created_at).toLocaleString() },
  ];
  if (teams.error && !teams.data) return <ProblemView error={teams.error} />;
  return (
    <main>
      <h1>Teams and organizations</h1>
      <DataTable label="Organizations" columns={orgColumns} rows={organizations.data?.items} rowId={(o) => o.id} />
      <form
        className="filters"
        role="search"
        aria-label="Filter teams"
        onSubmit={(e) => {
          e.preventDefault();
          go({ ...filters(new FormData(e.currentTarget), ["search"]), page: 1 });
        }}
      >
        <label>
          Name or slug
          <input name="search" type="search" defaultValue={search.search ?? ""} />
        </label>
        <button type="submit">Filter</button>
      </form>
      <ProblemView error={teams.error ?? organizations.error} />
      <DataTable label="Teams" columns={columns} rows={teams.data?.items} rowId={(t) => t.id} />
      {teams.data ? (
        <Pager
          offset={(page - 1) * PAGE_SIZE}
          limit={PAGE_SIZE}
          total={teams.data.total}
          onOffset={(offset) => go({ page: offset / PAGE_SIZE + 1 })}
        />
      ) : null}
      <form
        className="card"
        aria-label="New team"
        onSubmit={(e) => {
          e.preventDefault();
          const form = e.currentTarget;
          create.mutate(new FormData(form), { onSuccess: () => form.reset() });
        }}
      >
        <h2>New team</h2>
        <label>
          Name
          <input name="name" required maxLength={255} />
        </label>
        <label>
          Slug
          <input name="slug" required maxLength={64} />
        </label>
        <label>
          Description
          <input name="description" />
        </label>
        <label>
          Organization
          <select name="organization_id" defaultValue="">
            <option value="">the only one (when there is one)</option>
            {organizations.data?.items.map((o) => (
              <option key={o.id} value={o.id}>
                {o.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Parent team
          <select name="parent_group_id" defaultValue="">
            <option value="">none (top level)</option>
            {choices.data?.map((t) => (
              <option key={t.id} value={t.id}>
                {t.name}
              </option>
            ))}
          </select>
        </label>
        <button type="submit">Create team</button>
        <ProblemView error={create.error} />
        {create.data ? <p role="status">Team {create.data.name} created.</p> : null}
      </form>
    </main>
  );
}
