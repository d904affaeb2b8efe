// The events policy emits, written to the outbox in the transaction of the change they report: the audit events
// (@sca/audit), LicensePolicyChanged, which tells projects that the license policy in force may have changed, and
// GatePolicyChanged, which carries a gate policy's approval_required_statuses to projects' finding triage.
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { EntityManager } from "@mikro-orm/postgresql";
import { auditEmitter } from "@sca/audit";
import { enqueue, topicContract, TOPICS } from "@sca/kafka";
import { GatePolicyChangedSchema, LicensePolicyChangedSchema } from "@sca/proto/sca/events/v1/policy_pb.ts";

export const policyDomainEvents = topicContract(
  TOPICS.domainEvents,
  LicensePolicyChangedSchema,
  GatePolicyChangedSchema,
);

/** Policy's audit events; most are about a row of license_policies. */
export const emitAudit = auditEmitter({ source: "policy", defaultTargetTable: "license_policies" });

export function emitLicensePolicyChanged(
  em: EntityManager,
  scope: { organizationId: string | null; teamId: string | null },
  at: Date,
): void {
  enqueue(
    em,
    policyDomainEvents,
    scope.organizationId ?? scope.teamId ?? "",
    create(LicensePolicyChangedSchema, {
      occurredAt: timestampFromDate(at),
      organizationId: scope.organizationId ?? "",
      teamId: scope.teamId ?? "",
    }),
  );
}

/** A gate policy as it now stands (deleted: gone), keyed by its organization so one policy's changes stay in order. */
export function emitGatePolicyChanged(
  em: EntityManager,
  policy: { organizationId: string; teamId: string | null; approvalRequiredStatuses: string[] | null } | null,
  scope: { organizationId: string; teamId: string | null },
  at: Date,
): void {
  enqueue(
    em,
    policyDomainEvents,
    scope.organizationId,
    create(GatePolicyChangedSchema, {
      occurredAt: timestampFromDate(at),
      organizationId: scope.organizationId,
      teamId: scope.teamId ?? "",
      deleted: policy === null,
      approvalRequiredStatusesSet: policy !== null && policy.approvalRequiredStatuses !== null,
      approvalRequiredStatuses: policy?.approvalRequiredStatuses ?? [],
    }),
  );
}
