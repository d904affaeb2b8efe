// Identity's consumer of projects' events: keeps known_projects (the owning team of each project) current, for a
// team's project_count and for project-scoped API keys. Applied once per event (idempotent consumer).
import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { EntityManager } from "@mikro-orm/postgresql";
import { topicContract, TOPICS } from "@sca/kafka";
import {
  ProjectArchivedSchema,
  ProjectCreatedSchema,
  ProjectUpdatedSchema,
  type ProjectArchived,
  type ProjectCreated,
  type ProjectUpdated,
} from "@sca/proto/sca/events/v1/projects_pb.ts";
import { recordProjectFacts } from "../store/known-projects.ts";

export const PROJECT_COPY_GROUP = "identity.project-copy";

export const projectEvents = topicContract(
  TOPICS.domainEvents,
  ProjectCreatedSchema,
  ProjectUpdatedSchema,
  ProjectArchivedSchema,
);

export async function applyProjectEvent(
  em: EntityManager,
  event: ProjectCreated | ProjectUpdated | ProjectArchived,
): Promise<void> {
  const p = event.project;
  if (!p) return;
  await recordProjectFacts(em, {
    id: p.projectId,
    teamId: p.teamId,
    organizationId: p.organizationId || null,
    archived: p.archived,
    changedAt: event.occurredAt ? timestampDate(event.occurredAt) : new Date(),
  });
}
