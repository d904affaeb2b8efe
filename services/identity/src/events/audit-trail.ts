// Audit events of the directory and of API keys, written to the outbox in the transaction of the change they
// record. They carry identifiers and outcomes only: never a key, secret or token.
import { create } from "@bufbuild/protobuf";
import { timestampNow } from "@bufbuild/protobuf/wkt";
import type { EntityManager } from "@mikro-orm/postgresql";
import { auditEventsTopic, enqueue } from "@sca/kafka";
import { currentRequestId } from "@sca/log";
import { AuditActorSchema, AuditEventSchema } from "@sca/proto/sca/events/v1/audit_pb.ts";
import type { Caller } from "@sca/rpc";

export interface AuditRecord {
  action: string;
  targetTable: string;
  targetId: string;
  teamId?: string | null;
  organizationId?: string | null;
  details?: Record<string, string>;
}

/** Adds the event to the outbox through `em`; it commits with the change or not at all. */
export function recordAudit(em: EntityManager, caller: Caller, r: AuditRecord): void {
  const event = create(AuditEventSchema, {
    occurredAt: timestampNow(),
    source: "identity",
    action: r.action,
    actor: create(AuditActorSchema, {
      userId: caller.user_id ?? "", apiKeyId: caller.api_key_id ?? "", email: caller.email ?? "",
      ip: caller.ip ?? "", userAgent: caller.user_agent ?? "",
    }),
    targetTable: r.targetTable,
    targetId: r.targetId,
    teamId: r.teamId ?? "",
    organizationId: r.organizationId ?? "",
    requestId: currentRequestId() ?? "",
    outcome: "success",
    details: r.details ?? {},
  });
  enqueue(em, auditEventsTopic, caller.user_id ?? "anonymous", event);
}
