// The projects list: the spec's search and filters, paged by the API, and (for a team's writers) the create form.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useNavigate, useSearch } from "@tanstack/react-router";
import { useState, type FormEvent } from "react";
import { field } from "../form.ts";
import { dataOf } from "../problem.ts";
import { ProblemView } from "../problem-view.tsx";
import { api } from "../session/session.ts";
import { canWrite, useMe } from "../session/me.ts";

const PAGE_SIZE = 20;

interface ProjectsSearch {
  q?: string;
  page?: number;
  archived?: boolean;
}

export function ProjectsPage() {
  const search: ProjectsSearch = useSearch({ strict: false });
  const navigate = useNavigate();
  const page = search.page ?? 1;
  const me = useMe();
  const [creating, setCreating] = useState(false);
  const projects = useQuery({
    queryKey: ["projects", search],
    queryFn: async () =>
      dataOf(
        await api.GET("/v1/projects", {
          params: {
            query: {
              page,
              size: PAGE_SIZE,
              ...(search.q ? { q: search.q } : {}),
              include_archived: search.archived ? "true" : "false",
            },
          },
        }),
      ),
  });
  const pages = projects.data ? Math.max(1, Math.ceil(projects.data.total / PAGE_SIZE)) : 1;
  const go = (next: ProjectsSearch) => void navigate({ to: "/projects", search: { ...search, ...next } });

  return (
    <main>
      <div className="heading">
        <h1>Projects</h1>
        {canWrite(me.data, undefined) ? (
          <button type="button" onClick={() => setCreating((c) => !c)} aria-expanded={creating}>
            New project
          </button>
        ) : null}
      </div>
      {creating ? <CreateProject onDone={() => setCreating(false)} /> : null}
      <form
        className="filters"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          go({ q: field(new FormData(e.currentTarget), "q") || undefined, page: 1 });
        }}
      >
        <label>
          Search
          <input name="q" type="search" defaultValue={search.q ?? ""} placeholder="Name or slug" />
        </label>
        <label className="inline">
          <input
            type="checkbox"
            checked={!!search.archived}
            onChange={(e) => go({ archived: e.target.checked || undefined, page: 1 })}
          />
          Include archived
        </label>
        <button type="submit">Search</button>
      </form>
      <ProblemView error={projects.error} />
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Team</th>
            <th scope="col">Last scan</th>
            <th scope="col">Status</th>
          </tr>
        </thead>
        <tbody>
          {projects.data?.items.map((p) => (
            <tr key={p.id}>
              <td>
                <Link to="/projects/$projectId" params={{ projectId: p.id }}>
                  {p.name}
                </Link>
                {p.archived_at ? <span className="badge">archived</span> : null}
              </td>
              <td>{p.team_name}</td>
              <td>{p.last_scan_at ? new Date(p.last_scan_at).toLocaleString() : "never"}</td>
              <td>{p.latest_scan_status ?? "—"}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {projects.data && projects.data.total === 0 ? <p>No projects.</p> : null}
      <nav className="pager" aria-label="Pages">
        <button type="button" disabled={page <= 1} onClick={() => go({ page: page - 1 })}>
          Previous
        </button>
        <span>
          Page {page} of {pages}
        </span>
        <button type="button" disabled={page >= pages} onClick={() => go({ page: page + 1 })}>
          Next
        </button>
      </nav>
    </main>
  );
}

function slugOf(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 100);
}

function CreateProject({ onDone }: { onDone: () => void }) {
  const me = useMe();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const teams = (me.data?.memberships ?? []).filter((m) => m.role !== "viewer");
  const create = useMutation({
    mutationFn: async (form: FormData) =>
      dataOf(
        await api.POST("/v1/projects", {
          body: {
            name: field(form, "name"),
            slug: field(form, "slug") || slugOf(field(form, "name")),
            team_id: field(form, "team_id"),
            ...(form.get("description") ? { description: field(form, "description") } : {}),
          },
        }),
      ),
    onSuccess: async (project) => {
      await queryClient.invalidateQueries({ queryKey: ["projects"] });
      onDone();
      void navigate({ to: "/projects/$projectId", params: { projectId: project.id } });
    },
  });
  return (
    <form
      className="card"
      aria-label="New project"
      onSubmit={(e: FormEvent<HTMLFormElement>) => {
        e.preventDefault();
        create.mutate(new FormData(e.currentTarget));
      }}
    >
      <ProblemView error={create.error} />
      <label>
        Name
        <input name="name" required maxLength={255} />
      </label>
      <label>
        Slug (from the name when empty)
        <input name="slug" pattern="[a-z0-9-]+" maxLength={100} />
      </label>
      <label>
        Team
        {teams.length ? (
          <select name="team_id" required>
            {teams.map((t) => (
              <option key={t.team_id} value={t.team_id}>
                {t.team_name}
              </option>
            ))}
          </select>
        ) : (
          <input name="team_id" required placeholder="Team id" />
        )}
      </label>
      <label>
        Description
        <textarea name="description" maxLength={2000} />
      </label>
      <button type="submit" disabled={create.isPending}>
        Create
      </button>
    </form>
  );
}
