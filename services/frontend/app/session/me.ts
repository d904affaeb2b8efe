// Who is signed in and what they may do: the write buttons a role does not allow are not shown (the API refuses them
// anyway; hiding them keeps a viewer from meeting a 403).
import { useQuery } from "@tanstack/react-query";
import type { Schemas } from "@sca/api-client";
import { dataOf } from "../problem.ts";
import { api } from "./session.ts";

export type Me = Schemas["Me"];
export type TeamRole = Me["memberships"][number]["role"];

export function useMe() {
  return useQuery({ queryKey: ["me"], queryFn: async () => dataOf(await api.GET("/v1/auth/me")), staleTime: 60_000 });
}

/** The roles that change a team's projects and triage their findings (the spec's viewer only reads). */
export function canWrite(me: Me | undefined, teamId: string | undefined): boolean {
  if (!me) return false;
  if (me.is_superuser) return true;
  return me.memberships.some((m) => (teamId === undefined || m.team_id === teamId) && m.role !== "viewer");
}

/** The roles that administer a team (the API's team_admin and above; a group admin administers its teams). */
export function canAdminister(me: Me | undefined, teamId: string | undefined): boolean {
  if (!me) return false;
  if (me.is_superuser) return true;
  return me.memberships.some((m) => m.team_id === teamId && (m.role === "team_admin" || m.role === "group_admin"));
}
