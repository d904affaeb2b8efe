// known_projects: identity's copy of each project's owning team (docs/adr/0005: the one module naming its columns).
import type { EntityManager } from "@mikro-orm/postgresql";
import { SNAPSHOT } from "@sca/db";
import { KnownProject, type KnownProjectRow } from "./entities/known-project.ts";

export interface ProjectFacts {
  id: string;
  teamId: string;
  organizationId: string | null;
  archived: boolean;
  changedAt: Date;
}

/** Records the project as an event saw it, unless a later event already did. */
export async function recordProjectFacts(em: EntityManager, f: ProjectFacts): Promise<void> {
  const known = await em.findOne(KnownProject, { id: f.id }, SNAPSHOT);
  if (known && known.changedAt > f.changedAt) return;
  await em
    .createQueryBuilder(KnownProject)
    .insert({
      id: f.id,
      teamId: f.teamId,
      organizationId: f.organizationId,
      archived: f.archived,
      changedAt: f.changedAt,
    })
    .onConflict("id")
    .merge(["teamId", "organizationId", "archived", "changedAt"])
    .execute("run");
}

export async function knownProject(em: EntityManager, id: string): Promise<KnownProjectRow | null> {
  return em.findOne(KnownProject, { id }, SNAPSHOT);
}

/** Active projects per team (teams without any are absent). */
export async function projectCounts(em: EntityManager, teamIds: readonly string[]): Promise<Map<string, number>> {
  if (teamIds.length === 0) return new Map();
  const rows = await em.find(
    KnownProject,
    { teamId: { $in: [...new Set(teamIds)] }, archived: false },
    { ...SNAPSHOT, fields: ["id", "teamId"] },
  );
  const counts = new Map<string, number>();
  for (const r of rows) counts.set(r.teamId, (counts.get(r.teamId) ?? 0) + 1);
  return counts;
}
