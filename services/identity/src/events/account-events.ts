// The events identity emits (accounts, sessions, the directory, API keys), written to the outbox in the
// transaction of the change they report. Audit events never carry a password, token, code, key or secret:
// identifiers and outcomes only.
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { EntityManager } from "@mikro-orm/postgresql";
import { auditEventsTopic, enqueue, topicContract, TOPICS } from "@sca/kafka";
import { currentRequestId } from "@sca/log";
import type { Caller } from "@sca/rpc";
import { PasswordResetRequestedSchema } from "@sca/proto/sca/events/v1/accounts_pb.ts";
import { AuditActorSchema, AuditEventSchema } from "@sca/proto/sca/events/v1/audit_pb.ts";

export const accountDomainEvents = topicContract(TOPICS.domainEvents, PasswordResetRequestedSchema);

/** Who acted: the authenticated caller (with the API key it used, if any), or an anonymous client (with the address it claimed, if any). */
export interface Actor { userId: string; apiKeyId?: string; email: string; ip: string; userAgent: string }

export function callerActor(caller: Caller): Actor {
  return {
    userId: caller.user_id ?? "", apiKeyId: caller.api_key_id ?? "", email: caller.email ?? "",
    ip: caller.ip ?? "", userAgent: caller.user_agent ?? "",
  };
}

export function clientActor(client: { ip: string; userAgent: string } | undefined, who: { userId?: string; email?: string } = {}): Actor {
  return { userId: who.userId ?? "", email: who.email ?? "", ip: client?.ip ?? "", userAgent: client?.userAgent ?? "" };
}

export interface AuditRecord {
  action: string;
  actor: Actor;
  /** The table of the changed row; "users" unless said otherwise. */
  targetTable?: string;
  targetId: string;
  teamId?: string | null;
  organizationId?: string | null;
  outcome: "success" | "failure";
  details?: Record<string, string>;
  at: Date;
}

/** Adds the event to the outbox through `em`; it commits with the change or not at all. */
export function emitAudit(em: EntityManager, r: AuditRecord): void {
  const event = create(AuditEventSchema, {
    occurredAt: timestampFromDate(r.at),
    source: "identity",
    action: r.action,
    actor: create(AuditActorSchema, r.actor),
    targetTable: r.targetTable ?? "users",
    targetId: r.targetId,
    teamId: r.teamId ?? "",
    organizationId: r.organizationId ?? "",
    requestId: currentRequestId() ?? "",
    outcome: r.outcome,
    details: r.details ?? {},
  });
  enqueue(em, auditEventsTopic, r.actor.userId || r.targetId || r.actor.email || "anonymous", event);
}

export interface ResetRequest {
  userId: string;
  email: string;
  fullName: string | null;
  resetUrl: string;
  expiresAt: Date;
  requestedBy: "self_service" | "admin";
  at: Date;
}

export function emitPasswordResetRequested(em: EntityManager, r: ResetRequest): void {
  enqueue(em, accountDomainEvents, r.userId, create(PasswordResetRequestedSchema, {
    occurredAt: timestampFromDate(r.at),
    userId: r.userId,
    email: r.email,
    ...(r.fullName === null ? {} : { fullName: r.fullName }),
    resetUrl: r.resetUrl,
    expiresAt: timestampFromDate(r.expiresAt),
    requestedBy: r.requestedBy,
  }));
}
