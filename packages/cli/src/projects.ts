// --project takes the project's id or its slug; `--create --team SLUG` makes a missing one. A slug is found through
// the project list's search (slugs are unique per organization, so the exact match is the project).
import type { Schemas } from "@sca/api-client";
import { CliError } from "./exit-codes.ts";
import { answer, type Portal } from "./portal.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type Project = Schemas["Project"];

export async function findProject(portal: Portal, ref: string): Promise<Project | null> {
  if (UUID.test(ref)) {
    const { data, error, response } = await portal.api.GET("/v1/projects/{id}", { params: { path: { id: ref } } });
    if (response.status === 404) return null;
    return answer(Promise.resolve({ data, error, response }));
  }
  const page = await answer(portal.api.GET("/v1/projects", { params: { query: { q: ref, size: 100 } } }));
  return page.items.find((p) => p.slug === ref) ?? null;
}

export async function resolveProject(
  portal: Portal,
  ref: string,
  create?: { team?: string | undefined },
): Promise<Project> {
  const found = await findProject(portal, ref);
  if (found) return found;
  if (!create) throw new CliError(`no project ${ref} visible to ${describeCaller(portal)} (add --create --team SLUG)`);
  if (UUID.test(ref)) throw new CliError("--create needs the new project's slug, not an id");
  if (!create.team) throw new CliError("--create needs --team (the team's slug or id)");
  const teamId = await resolveTeam(portal, create.team);
  const created = await answer(portal.api.POST("/v1/projects", { body: { name: ref, slug: ref, team_id: teamId } }));
  portal.terminal.info(`created project ${created.slug} (${created.id})`);
  return created;
}

async function resolveTeam(portal: Portal, team: string): Promise<string> {
  if (UUID.test(team)) return team;
  // A team's slug is known from the person's memberships; an API key has no such view, so it names the team by id.
  if (portal.bearer?.kind !== "access_token") throw new CliError("with an API key, give --team as the team's id");
  const me = await answer(portal.api.GET("/v1/auth/me"));
  const membership = me.memberships.find((m) => m.team_slug === team);
  if (!membership) throw new CliError(`${me.email} is not a member of a team ${team}`);
  return membership.team_id;
}

function describeCaller(portal: Portal): string {
  return portal.bearer?.kind === "access_token" ? portal.bearer.email : "this API key";
}
