// Policy's consumer of projects' ProjectUpdated: keeps the project name and slug copied onto approval requests
// current after a rename (the team and organization never change). Applied once per event (idempotent consumer).
import type { EntityManager } from "@mikro-orm/postgresql";
import { topicContract, TOPICS } from "@sca/kafka";
import { ProjectUpdatedSchema, type ProjectUpdated } from "@sca/proto/sca/events/v1/projects_pb.ts";
import { renameProject } from "../store/approvals.ts";

export const PROJECT_NAMES_GROUP = "policy.project-names";

export const projectUpdates = topicContract(TOPICS.domainEvents, ProjectUpdatedSchema);

export async function applyProjectRename(em: EntityManager, event: ProjectUpdated): Promise<void> {
  const p = event.project;
  if (!p || !event.changedFields.some((f) => f === "name" || f === "slug")) return;
  await renameProject(em, p.projectId, p.name, p.slug);
}
