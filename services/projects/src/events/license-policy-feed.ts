// Projects' consumer of policy's LicensePolicyChanged on sca.domain.events (group projects.license-policy-feed, each
// event applied once), of its own ProjectUpdated when a project's use changed, and of its own InventoryIngested (a new
// snapshot, categorised after its ingestion committed: ingestion never waits on policy, and the consumer retries
// while policy is unreachable) and InventoryLicensesFetched (the registry lookup's licenses landed on a snapshot after
// its findings, perhaps after the scan succeeded: categorised again the same way). The components of the snapshots
// concerned take the license_category the policy now in force gives them, and the project's
// license_category_summary is recounted. Per snapshot: one read, one CategoriseLicenses call per 10000 components,
// one UPDATE per category that changed. After fetched licenses were categorised, InventoryLicensesCategorised goes
// out in the same transaction, so policy judges the gate on the categories as they now are (the scan's success may
// have been judged before the licenses arrived). It goes out even when this pass changed nothing: another pass (the
// snapshot's first categorisation, a policy change) may have categorised the fetched licenses first.
import { refreshProjectFigures } from "../store/portfolio/figures.ts";
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { EntityManager } from "@mikro-orm/postgresql";
import { enqueue, topicContract, TOPICS, type EventMeta } from "@sca/kafka";
import type { Logger } from "@sca/log";
import { LicensePolicyChangedSchema, type LicensePolicyChanged } from "@sca/proto/sca/events/v1/policy_pb.ts";
import {
  InventoryIngestedSchema,
  InventoryLicensesCategorisedSchema,
  InventoryLicensesFetchedSchema,
  ProjectUpdatedSchema,
  type InventoryIngested,
  type InventoryLicensesFetched,
  type ProjectUpdated,
} from "@sca/proto/sca/events/v1/projects_pb.ts";
import type { LicenseCategories } from "../clients/license-categories.ts";
import { isUuid } from "../domain/project-fields.ts";
import { lockProjectInventory } from "../store/inventory/ingestion.ts";
import { setLicenseCategory, snapshotLicenses } from "../store/inventory/licenses.ts";
import { snapshotScanIds } from "../store/inventory/snapshots.ts";
import {
  projectById,
  projectsUnderLicensePolicy,
  recountInventorySummary,
  type ProjectRow,
} from "../store/projects.ts";
import { projectDomainEvents } from "./project-events.ts";

export const LICENSE_POLICY_FEED_GROUP = "projects.license-policy-feed";

// A project's own use changing (its ProjectUpdated naming distribution_model or ai_usage_context) re-judges it too.
export const licensePolicyNews = topicContract(
  TOPICS.domainEvents,
  LicensePolicyChangedSchema,
  ProjectUpdatedSchema,
  InventoryIngestedSchema,
  InventoryLicensesFetchedSchema,
);

const USE_FIELDS = ["distribution_model", "ai_usage_context"];

type ProjectUse = Pick<ProjectRow, "id" | "teamId" | "distributionModel" | "aiUsageContext">;

/**
 * Re-categorises the components of every snapshot of the project (or only `onlyScanId`'s), inside the caller's
 * transaction and under the project's inventory lock (an ingestion of the project waits). Answers the components
 * whose category changed.
 */
export async function recategoriseProject(
  em: EntityManager,
  categories: LicenseCategories,
  project: ProjectUse,
  onlyScanId?: string,
): Promise<number> {
  await lockProjectInventory(em, project.id);
  const scanIds = await snapshotScanIds(em, project.id);
  let changed = 0;
  for (const scanId of onlyScanId ? scanIds.filter((id) => id === onlyScanId) : scanIds)
    changed += await recategoriseSnapshot(em, categories, project, scanId);
  if (changed > 0) {
    await recountInventorySummary(em, project.id);
    await refreshProjectFigures(em, [project.id]);
  }
  return changed;
}

async function recategoriseSnapshot(
  em: EntityManager,
  categories: LicenseCategories,
  project: ProjectUse,
  scanId: string,
): Promise<number> {
  const components = await snapshotLicenses(em, scanId);
  const judged = await categories.categorise(project, components);
  const idsByCategory = new Map<string, string[]>();
  components.forEach((c, i) => {
    const category = judged[i]!;
    if (c.licenseCategory === category) return;
    const ids = idsByCategory.get(category) ?? [];
    ids.push(c.id);
    idsByCategory.set(category, ids);
  });
  let changed = 0;
  for (const [category, ids] of idsByCategory) changed += await setLicenseCategory(em, scanId, category, ids);
  return changed;
}

export function licensePolicyFeedHandler(categories: LicenseCategories, logger: Logger) {
  return async (
    em: EntityManager,
    event: LicensePolicyChanged | ProjectUpdated | InventoryIngested | InventoryLicensesFetched,
    meta: EventMeta,
  ): Promise<void> => {
    if (
      event.$typeName === "sca.events.v1.InventoryIngested" ||
      event.$typeName === "sca.events.v1.InventoryLicensesFetched"
    ) {
      if (!isUuid(event.projectId) || !isUuid(event.scanId)) return;
      const project = await projectById(em, event.projectId.toLowerCase());
      if (!project) return;
      const scanId = event.scanId.toLowerCase();
      const changed = await recategoriseProject(em, categories, project, scanId);
      if (event.$typeName === "sca.events.v1.InventoryLicensesFetched")
        enqueue(
          em,
          projectDomainEvents,
          project.id,
          create(InventoryLicensesCategorisedSchema, {
            occurredAt: timestampFromDate(meta.timestamp),
            projectId: project.id,
            teamId: project.teamId,
            scanId,
            changed,
          }),
        );
      return;
    }
    if (event.$typeName === "sca.events.v1.ProjectUpdated") {
      if (!event.changedFields.some((f) => USE_FIELDS.includes(f)) || !isUuid(event.project?.projectId ?? "")) return;
      const project = await projectById(em, event.project!.projectId.toLowerCase());
      if (project) await recategoriseProject(em, categories, project);
      return;
    }
    const scope = isUuid(event.teamId)
      ? { teamId: event.teamId.toLowerCase() }
      : isUuid(event.organizationId)
        ? { organizationId: event.organizationId.toLowerCase() }
        : null;
    if (!scope) {
      logger.warn({ eventId: meta.eventId }, "license policy news naming no team or organization; skipped");
      return;
    }
    for (const project of await projectsUnderLicensePolicy(em, scope)) {
      const changed = await recategoriseProject(em, categories, project);
      logger.debug({ projectId: project.id, changed }, "re-categorised the project's licenses");
    }
  };
}
