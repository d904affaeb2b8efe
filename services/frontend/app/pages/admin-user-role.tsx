// Setting one person's role (PATCH /v1/admin/users/{id}/role): super_admin is a flag of the person (no team), the team
// roles group_admin and developer are a membership of the team chosen. The API judges the choice: a team role without
// a team is its 422, demoting the last active super_admin its 409; either is shown as its problem.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { paths } from "@sca/api-client";
import { field } from "../form.ts";
import { dataOf } from "../problem.ts";
import { ProblemView } from "../problem-view.tsx";
import { api } from "../session/session.ts";
import { useTeamChoices } from "./admin-teams.tsx";

type Body = NonNullable<paths["/v1/admin/users/{id}/role"]["patch"]["requestBody"]>["content"]["application/json"];
type Role = Body["role"];
const ROLES: Role[] = ["developer", "group_admin", "super_admin"];

export function UserRoleForm({ user }: { user: { id: string; email: string } }) {
  const queryClient = useQueryClient();
  const teams = useTeamChoices();
  const [role, setRole] = useState<Role>("developer");
  const change = useMutation({
    mutationFn: async (body: Body) =>
      dataOf(await api.PATCH("/v1/admin/users/{id}/role", { params: { path: { id: user.id } }, body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["admin", "users"] }),
  });
  const teamRole = role !== "super_admin";
  const answer = change.data;
  const label = `Role of ${user.email}`;
  return (
    <form
      className="filters"
      aria-label={label}
      onSubmit={(e) => {
        e.preventDefault();
        const team = field(new FormData(e.currentTarget), "team_id");
        change.mutate(teamRole && team ? { role, team_id: team } : { role });
      }}
    >
      <h2>{label}</h2>
      <label>
        Role
        <select name="role" value={role} onChange={(e) => setRole(e.currentTarget.value as Role)}>
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
      </label>
      {teamRole ? (
        <label>
          Team
          <select name="team_id" defaultValue="">
            <option value="">choose a team</option>
            {teams.data?.map((t) => (
              <option key={t.id} value={t.id}>
                {t.name}
              </option>
            ))}
          </select>
        </label>
      ) : null}
      <button type="submit">Set role</button>
      <ProblemView error={change.error ?? teams.error} />
      {answer ? (
        <p role="status">
          {answer.email}: {answer.is_superuser ? "super_admin" : "not super_admin"}; teams{" "}
          {answer.memberships.map((m) => `${m.team_name} (${m.role})`).join(", ") || "none"}.
        </p>
      ) : null}
    </form>
  );
}
