// VulnerabilitiesKevListed: one event per project whose open findings a KEV listing reached, written to the outbox
// in the transaction of the enrichment update (RecordVulnerabilityUpdates) that put the vulnerabilities on the
// catalog, or of the re-match (RecordRefreshMatches) that gave a project new findings of vulnerabilities listed
// already. Only the newly listed (or newly found) count: a vulnerability already listed, or a refresh that changes
// nothing, emits nothing, so the notifier's vulnerability.kev_listed fires once per listing of a finding.
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { EntityManager } from "@mikro-orm/postgresql";
import { enqueue, topicContract, TOPICS } from "@sca/kafka";
import { KevListedFindingSchema, VulnerabilitiesKevListedSchema } from "@sca/proto/sca/events/v1/kev_listings_pb.ts";
import { openFindingsKevListed, type KevTouchedFinding } from "../store/findings/kev-listings.ts";

export const kevListingEvents = topicContract(TOPICS.domainEvents, VulnerabilitiesKevListedSchema);

/** At most this many findings are named in each event (the count is whole). */
export const KEV_EVENT_LIST_MAX = 500;

/** Emits the events for the newly listed vulnerabilities; answers how many projects they reached. */
export async function emitKevListings(em: EntityManager, newlyListed: readonly string[], at: Date): Promise<number> {
  return emitFor(em, await openFindingsKevListed(em, newlyListed, KEV_EVENT_LIST_MAX), at);
}

/** Emits the events for findings a re-match added whose vulnerability is listed already. */
export async function emitKevListingsOfNewFindings(
  em: EntityManager,
  added: readonly { findingId: string; vulnerabilityId: string }[],
  at: Date,
): Promise<number> {
  const vulnerabilityIds = [...new Set(added.map((f) => f.vulnerabilityId))];
  const findingIds = added.map((f) => f.findingId);
  return emitFor(em, await openFindingsKevListed(em, vulnerabilityIds, KEV_EVENT_LIST_MAX, findingIds), at);
}

function emitFor(em: EntityManager, rows: KevTouchedFinding[], at: Date): number {
  const byProject = new Map<string, KevTouchedFinding[]>();
  for (const r of rows) {
    const list = byProject.get(r.projectId) ?? [];
    list.push(r);
    byProject.set(r.projectId, list);
  }
  for (const [projectId, findings] of byProject) {
    const first = findings[0]!;
    enqueue(
      em,
      kevListingEvents,
      projectId,
      create(VulnerabilitiesKevListedSchema, {
        occurredAt: timestampFromDate(at),
        projectId,
        teamId: first.teamId,
        scanId: first.scanId,
        listedCount: first.touchedCount,
        findings: findings.map((f) =>
          create(KevListedFindingSchema, {
            findingId: f.findingId,
            vulnerabilityId: f.vulnerabilityId,
            severity: f.severity,
            componentName: f.componentName,
            componentVersion: f.componentVersion ?? "",
            purl: f.purl ?? "",
            kevDueDate: f.kevDueDate,
          }),
        ),
      }),
    );
  }
  return byProject.size;
}
