// The teams and organizations the governance pages offer: the caller's memberships, and for a super_admin (who may
// belong to none) the deployment's first 200 of each (GET /v1/admin/teams, /v1/admin/organizations).
import { useQuery } from "@tanstack/react-query";
import { dataOf } from "../problem.ts";
import { useMe } from "../session/me.ts";
import { api } from "../session/session.ts";

export interface Choice {
  id: string;
  name: string;
}

const ADMIN_PAGE = 200;

function unique(choices: Choice[]): Choice[] {
  return [...new Map(choices.map((c) => [c.id, c])).values()];
}

export function useOrganizations() {
  const me = useMe();
  return useQuery({
    queryKey: ["governance", "organizations", me.data?.id],
    enabled: me.data !== undefined,
    queryFn: async (): Promise<Choice[]> => {
      const own = me.data!.memberships.flatMap((m) =>
        m.organization_id ? [{ id: m.organization_id, name: `the organization of ${m.team_name}` }] : [],
      );
      if (!me.data!.is_superuser) return unique(own);
      const all = dataOf(await api.GET("/v1/admin/organizations", { params: { query: { page_size: ADMIN_PAGE } } }));
      return unique([...all.items.map((o) => ({ id: o.id, name: o.name })), ...own]);
    },
  });
}

export function useTeams() {
  const me = useMe();
  return useQuery({
    queryKey: ["governance", "teams", me.data?.id],
    enabled: me.data !== undefined,
    queryFn: async (): Promise<Choice[]> => {
      const own = me.data!.memberships.map((m) => ({ id: m.team_id, name: m.team_name }));
      if (!me.data!.is_superuser) return unique(own);
      const all = dataOf(await api.GET("/v1/admin/teams", { params: { query: { page_size: ADMIN_PAGE } } }));
      return unique([...own, ...all.items.map((t) => ({ id: t.id, name: t.name }))]);
    },
  });
}

function Choose(props: { label: string; name: string; choices: Choice[] | undefined; value: string | undefined }) {
  return (
    <label>
      {props.label}
      <select name={props.name} defaultValue={props.value} key={props.value}>
        {(props.choices ?? []).map((c) => (
          <option key={c.id} value={c.id}>
            {c.name}
          </option>
        ))}
      </select>
    </label>
  );
}

export function OrganizationChoice(props: { organizations: Choice[] | undefined; value: string | undefined }) {
  return <Choose label="Organization" name="organization_id" choices={props.organizations} value={props.value} />;
}

export function TeamChoice(props: { teams: Choice[] | undefined; value: string | undefined }) {
  return <Choose label="Team" name="team_id" choices={props.teams} value={props.value} />;
}
