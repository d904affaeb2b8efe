import { defineEntity, p, type InferEntity } from "@mikro-orm/postgresql";

/**
 * Identity's copy of what it needs of each project (projects owns them): the owning team, for a team's
 * project_count and for checking a project-scoped API key's project. Fed by projects' events (events/project-copy.ts).
 * No foreign key to groups: an event may name a team identity has just deleted.
 */
export const KnownProject = defineEntity({
  name: "KnownProject",
  tableName: "known_projects",
  properties: {
    id: p.uuid().primary(),
    teamId: p.uuid(),
    organizationId: p.uuid().strictNullable(),
    archived: p.boolean().default(false),
    /** When the event that last changed the row occurred: an older event never overwrites a newer one. */
    changedAt: p.datetime(),
  },
  indexes: [{ name: "known_projects_team", properties: ["teamId"], where: "not archived" }],
});

export type KnownProjectRow = InferEntity<typeof KnownProject>;
