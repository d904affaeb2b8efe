// One team for the super_admin: its name, slug and description (changed), where it sits (moved with its subtree under
// another team of its organization, or to the organization's top level), its members (added by e-mail, their role
// changed, removed), and deleting it (the API refuses a team with subteams: its 409 is shown).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useNavigate, useParams } from "@tanstack/react-router";
import type { Schemas } from "@sca/api-client";
import { DataTable, type Columns } from "../data-table.tsx";
import { field } from "../form.ts";
import { dataOf } from "../problem.ts";
import { ProblemView } from "../problem-view.tsx";
import { api } from "../session/session.ts";
import { useTeamChoices } from "./admin-teams.tsx";

type Role = Schemas["TeamMember"]["role"];
const ROLES: Role[] = ["viewer", "developer", "team_admin", "group_admin"];

/** The person with exactly this e-mail, found through the API's user search (which matches parts of it). */
async function personByEmail(email: string): Promise<string> {
  const found = dataOf(await api.GET("/v1/admin/users", { params: { query: { q: email, page: 1, page_size: 50 } } }));
  const person = found.items.find((u) => u.email.toLowerCase() === email.trim().toLowerCase());
  if (!person) throw new Error(`No person has the e-mail ${email}.`);
  return person.id;
}

export function AdminTeamPage() {
  const { teamId }: { teamId: string } = useParams({ strict: false });
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const team = useQuery({
    queryKey: ["admin", "teams", teamId],
    queryFn: async () => dataOf(await api.GET("/v1/admin/teams/{id}", { params: { path: { id: teamId } } })),
  });
  const choices = useTeamChoices();
  const changed = () => queryClient.invalidateQueries({ queryKey: ["admin", "teams"] });
  const setMember = useMutation({
    mutationFn: async ({ userId, role }: { userId: string; role: Role }) =>
      dataOf(
        await api.POST("/v1/admin/teams/{id}/members", {
          params: { path: { id: teamId } },
          body: { user_id: userId, role },
        }),
      ),
    onSuccess: changed,
  });
  const add = useMutation({
    mutationFn: async (form: FormData) =>
      setMember.mutateAsync({ userId: await personByEmail(field(form, "email")), role: field(form, "role") as Role }),
  });
  const removeMember = useMutation({
    mutationFn: async (userId: string) =>
      dataOf(
        await api.DELETE("/v1/admin/teams/{id}/members/{user_id}", {
          params: { path: { id: teamId, user_id: userId } },
        }),
      ),
    onSuccess: changed,
  });
  const move = useMutation({
    mutationFn: async (parent: string) =>
      dataOf(
        await api.POST("/v1/admin/teams/{group_id}/move", {
          params: { path: { group_id: teamId } },
          body: { new_parent_id: parent || null },
        }),
      ),
    onSuccess: changed,
  });
  const rename = useMutation({
    mutationFn: async (form: FormData) =>
      dataOf(
        await api.PATCH("/v1/admin/teams/{id}", {
          params: { path: { id: teamId } },
          body: { name: field(form, "name"), slug: field(form, "slug"), description: field(form, "description") },
        }),
      ),
    onSuccess: changed,
  });
  const remove = useMutation({
    mutationFn: async () => dataOf(await api.DELETE("/v1/admin/teams/{id}", { params: { path: { id: teamId } } })),
    onSuccess: async () => {
      await changed();
      void navigate({ to: "/admin/teams" });
    },
  });
  const t = team.data;
  if (team.error) return <ProblemView error={team.error} />;
  if (!t) return <p role="status">Loading…</p>;
  const parentName = t.parent_group_id
    ? (choices.data?.find((c) => c.id === t.parent_group_id)?.name ?? t.parent_group_id)
    : "none (top level)";
  const columns: Columns<Schemas["TeamMember"]> = [
    { id: "email", header: "E-mail", cell: ({ row }) => row.original.email },
    { id: "name", header: "Name", cell: ({ row }) => row.original.full_name ?? "—" },
    {
      id: "role",
      header: "Role",
      cell: ({ row: { original: m } }) => (
        <select
          aria-label={`Role of ${m.email}`}
          value={m.role}
          onChange={(e) => setMember.mutate({ userId: m.user_id, role: e.target.value as Role })}
        >
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
      ),
    },
    {
      id: "actions",
      header: "Actions",
      cell: ({ row: { original: m } }) => (
        <button
          type="button"
          className="danger"
          onClick={() => {
            if (window.confirm(`Remove ${m.email} from ${t.name}?`)) removeMember.mutate(m.user_id);
          }}
        >
          Remove {m.email}
        </button>
      ),
    },
  ];
  // A team moves under another team of its organization, never under itself (the API also refuses its subteams).
  const parents = choices.data?.filter((c) => c.organization_id === t.organization_id && c.id !== t.id) ?? [];
  return (
    <main>
      <h1>Team {t.name}</h1>
      <p>
        Slug <code>{t.slug}</code>, {t.project_count} projects. Parent team: <span>{parentName}</span>
      </p>
      <form
        className="filters"
        aria-label="Move team"
        onSubmit={(e) => {
          e.preventDefault();
          move.mutate(field(new FormData(e.currentTarget), "parent"));
        }}
      >
        <label>
          Move under
          <select name="parent" defaultValue={t.parent_group_id ?? ""}>
            <option value="">none (top level)</option>
            {parents.map((c) => (
              <option key={c.id} value={c.id}>
                {c.name}
              </option>
            ))}
          </select>
        </label>
        <button type="submit">Move</button>
      </form>
      <ProblemView error={move.error ?? setMember.error ?? removeMember.error} />
      <DataTable label="Members" columns={columns} rows={t.members} rowId={(m) => m.user_id} />
      <form
        className="card"
        aria-label="Add member"
        onSubmit={(e) => {
          e.preventDefault();
          const form = e.currentTarget;
          add.mutate(new FormData(form), { onSuccess: () => form.reset() });
        }}
      >
        <h2>Add member</h2>
        <label>
          E-mail
          <input name="email" type="email" required />
        </label>
        <label>
          Role
          <select name="role" defaultValue="developer">
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </label>
        <button type="submit">Add</button>
        <ProblemView error={add.error} />
      </form>
      <form
        className="card"
        aria-label="Rename team"
        key={t.updated_at}
        onSubmit={(e) => {
          e.preventDefault();
          rename.mutate(new FormData(e.currentTarget));
        }}
      >
        <h2>Name, slug and description</h2>
        <label>
          Name
          <input name="name" required maxLength={255} defaultValue={t.name} />
        </label>
        <label>
          Slug
          <input name="slug" required maxLength={64} defaultValue={t.slug} />
        </label>
        <label>
          Description (empty: none)
          <input name="description" defaultValue={t.description ?? ""} />
        </label>
        <button type="submit" disabled={rename.isPending}>
          Save
        </button>
        <ProblemView error={rename.error} />
      </form>
      <section className="card" aria-labelledby="delete-team">
        <h2 id="delete-team">Delete the team</h2>
        <p>Its memberships go with it and its API keys are revoked. A team with subteams cannot be deleted.</p>
        <button
          type="button"
          className="danger"
          disabled={remove.isPending}
          onClick={() => {
            if (window.confirm(`Delete ${t.name}? Its memberships go and its API keys are revoked.`)) remove.mutate();
          }}
        >
          Delete {t.name}
        </button>
        <ProblemView error={remove.error} />
      </section>
    </main>
  );
}
