// The events identity emits (accounts, sessions, the directory, API keys), written to the outbox in the
// transaction of the change they report. Audit events never carry a password, token, code, key or secret:
// identifiers and outcomes only.
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { EntityManager } from "@mikro-orm/postgresql";
import { auditEmitter } from "@sca/audit";
import { enqueue, topicContract, TOPICS } from "@sca/kafka";
import { PasswordResetRequestedSchema } from "@sca/proto/sca/events/v1/accounts_pb.ts";

export const accountDomainEvents = topicContract(TOPICS.domainEvents, PasswordResetRequestedSchema);

/** Identity's audit events, emitted the one way every service does (@sca/audit); most are about a row of users. */
export const emitAudit = auditEmitter({ source: "identity", defaultTargetTable: "users" });

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
  enqueue(
    em,
    accountDomainEvents,
    r.userId,
    create(PasswordResetRequestedSchema, {
      occurredAt: timestampFromDate(r.at),
      userId: r.userId,
      email: r.email,
      ...(r.fullName === null ? {} : { fullName: r.fullName }),
      resetUrl: r.resetUrl,
      expiresAt: timestampFromDate(r.expiresAt),
      requestedBy: r.requestedBy,
    }),
  );
}
