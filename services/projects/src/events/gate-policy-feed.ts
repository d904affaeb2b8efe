// Projects' consumer of policy's GatePolicyChanged on sca.domain.events (group projects.gate-policy-feed, each event
// applied once): the copy of the gate policies' approval_required_statuses the finding triage enforces
// (docs/findings.md, "Statuses a second person confirms").
import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { EntityManager } from "@mikro-orm/postgresql";
import { topicContract, TOPICS, type EventMeta } from "@sca/kafka";
import type { Logger } from "@sca/log";
import { GatePolicyChangedSchema, type GatePolicyChanged } from "@sca/proto/sca/events/v1/policy_pb.ts";
import { isUuid } from "../domain/project-fields.ts";
import { storeGatePolicyCopy } from "../store/approval-required-statuses.ts";

export const GATE_POLICY_FEED_GROUP = "projects.gate-policy-feed";

export const gatePolicyNews = topicContract(TOPICS.domainEvents, GatePolicyChangedSchema);

export function gatePolicyFeedHandler(logger: Logger) {
  return async (em: EntityManager, event: GatePolicyChanged, meta: EventMeta): Promise<void> => {
    if (!isUuid(event.organizationId) || (event.teamId !== "" && !isUuid(event.teamId))) {
      logger.warn({ eventId: meta.eventId }, "gate policy news naming no organization; skipped");
      return;
    }
    await storeGatePolicyCopy(em, {
      organizationId: event.organizationId.toLowerCase(),
      teamId: event.teamId === "" ? null : event.teamId.toLowerCase(),
      statuses: event.deleted || !event.approvalRequiredStatusesSet ? null : event.approvalRequiredStatuses,
      changedAt: event.occurredAt ? timestampDate(event.occurredAt) : new Date(),
    });
  };
}
