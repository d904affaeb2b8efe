// One way for every service to emit audit events: to the outbox, in the transaction of the change they report,
// naming the emitting service. Audit events never carry a password, token, code, key or secret: identifiers and
// outcomes only.
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { EntityManager } from "@mikro-orm/postgresql";
import { auditEventsTopic, enqueue } from "@sca/kafka";
import { currentRequestId } from "@sca/log";
import { AuditActorSchema, AuditEventSchema } from "@sca/proto/sca/events/v1/audit_pb.ts";
import type { Actor } from "./actor.ts";

export interface AuditRecord {
  /** Dotted verb, e.g. "auth.login.succeeded". */
  action: string;
  actor: Actor;
  /** The table of the changed row; the emitter's defaultTargetTable when not given. */
  targetTable?: string;
  targetId: string;
  teamId?: string | null;
  organizationId?: string | null;
  outcome: "success" | "failure";
  details?: Record<string, string>;
  at: Date;
}

export interface AuditEmitterOptions {
  /** The emitting service, recorded as the event's source (e.g. "identity"). */
  source: string;
  /** The table most of the service's events are about, for records that name none. */
  defaultTargetTable?: string;
}

/** Adds the event to the outbox through `em` (it commits with the change or not at all); returns the event id. */
export type EmitAudit = (em: EntityManager, record: AuditRecord) => string;

export function auditEmitter(options: AuditEmitterOptions): EmitAudit {
  const { source, defaultTargetTable = "" } = options;
  if (!source) throw new RangeError("an audit emitter needs the name of the emitting service");
  return (em, r) => {
    const event = create(AuditEventSchema, {
      occurredAt: timestampFromDate(r.at),
      source,
      action: r.action,
      actor: create(AuditActorSchema, r.actor),
      targetTable: r.targetTable ?? defaultTargetTable,
      targetId: r.targetId,
      teamId: r.teamId ?? "",
      organizationId: r.organizationId ?? "",
      requestId: currentRequestId() ?? "",
      outcome: r.outcome,
      details: r.details ?? {},
    });
    // Keyed by actor (the topic's contract), so one actor's events stay in order; anonymous ones by what is known.
    return enqueue(em, auditEventsTopic, r.actor.userId || r.targetId || r.actor.email || "anonymous", event);
  };
}
