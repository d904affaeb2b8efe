// The events projects emits, written to the outbox in the transaction of the change they report: the domain events
// other services keep their copy of a project from, and the audit events (@sca/audit).
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { EntityManager } from "@mikro-orm/postgresql";
import { auditEmitter } from "@sca/audit";
import { enqueue, outboxInsert, topicContract, TOPICS } from "@sca/kafka";
import {
  FindingsChangedSchema,
  InventoryIngestedSchema,
  InventoryLicensesCategorisedSchema,
  InventoryLicensesFetchedSchema,
  MaliciousComponentsFlaggedSchema,
  ProjectArchivedSchema,
  ProjectCreatedSchema,
  ProjectFactsSchema,
  ProjectUpdatedSchema,
  VulnerabilitySlaBreachedSchema,
  type ProjectFacts,
} from "@sca/proto/sca/events/v1/projects_pb.ts";
import type { ProjectRow } from "../store/projects.ts";

export const projectDomainEvents = topicContract(
  TOPICS.domainEvents,
  ProjectCreatedSchema,
  ProjectUpdatedSchema,
  ProjectArchivedSchema,
  FindingsChangedSchema,
  InventoryIngestedSchema,
  InventoryLicensesFetchedSchema,
  InventoryLicensesCategorisedSchema,
  VulnerabilitySlaBreachedSchema,
  MaliciousComponentsFlaggedSchema,
);

/** Projects' audit events; most are about a row of projects. */
export const emitAudit = auditEmitter({ source: "projects", defaultTargetTable: "projects" });

function factsOf(p: ProjectRow): ProjectFacts {
  return create(ProjectFactsSchema, {
    projectId: p.id,
    teamId: p.teamId,
    organizationId: p.organizationId ?? "",
    name: p.name,
    slug: p.slug,
    visibility: p.visibility,
    archived: p.archivedAt !== null,
  });
}

export function emitProjectCreated(em: EntityManager, p: ProjectRow, at: Date): void {
  enqueue(
    em,
    projectDomainEvents,
    p.id,
    create(ProjectCreatedSchema, {
      occurredAt: timestampFromDate(at),
      project: factsOf(p),
      createdByUserId: p.createdByUserId ?? "",
    }),
  );
}

export function emitProjectUpdated(em: EntityManager, p: ProjectRow, changedFields: string[], at: Date): void {
  enqueue(
    em,
    projectDomainEvents,
    p.id,
    create(ProjectUpdatedSchema, { occurredAt: timestampFromDate(at), project: factsOf(p), changedFields }),
  );
}

export function emitProjectArchived(em: EntityManager, p: ProjectRow, at: Date): void {
  enqueue(
    em,
    projectDomainEvents,
    p.id,
    create(ProjectArchivedSchema, { occurredAt: timestampFromDate(at), project: factsOf(p) }),
  );
}

/** InventoryIngested, as the statement the ingestion's own SQL transaction runs (a bulk write, not the ORM). */
export function inventoryIngestedInsert(
  projectId: string,
  scanId: string,
  at: Date,
): { sql: string; params: unknown[] } {
  return outboxInsert(
    projectDomainEvents,
    projectId,
    create(InventoryIngestedSchema, { occurredAt: timestampFromDate(at), projectId, scanId }),
  );
}

/** InventoryLicensesFetched, in the transaction of the write that filled the snapshot's fetched licenses. */
export function emitInventoryLicensesFetched(
  em: EntityManager,
  projectId: string,
  scanId: string,
  updated: number,
  at: Date,
): void {
  enqueue(
    em,
    projectDomainEvents,
    projectId,
    create(InventoryLicensesFetchedSchema, { occurredAt: timestampFromDate(at), projectId, scanId, updated }),
  );
}
