// The request's filter as the store's query (422 naming the query parameter), and entries as the contract's.
import { create } from "@bufbuild/protobuf";
import { timestampDate, timestampFromDate } from "@bufbuild/protobuf/wkt";
import { ProblemError } from "@sca/problem";
import { AuditEntrySchema, type AuditEntry, type AuditFilter } from "@sca/proto/sca/admin/v1/audit_pb.ts";
import type { ChainedEntry } from "../domain/audit-chain.ts";
import { auditQueryOf, type AuditQuery } from "../domain/audit-entry.ts";

export function auditQuery(f: AuditFilter | undefined): AuditQuery {
  const read = auditQueryOf(
    f && {
      actorUserId: f.actorUserId,
      targetTable: f.targetTable,
      action: f.action,
      q: f.q,
      from: f.from ? timestampDate(f.from) : undefined,
      to: f.to ? timestampDate(f.to) : undefined,
    },
  );
  if (!read.ok) throw ProblemError.validation(read.violations);
  return read.query;
}

export function entryView(e: ChainedEntry): AuditEntry {
  return create(AuditEntrySchema, {
    id: e.id,
    seq: BigInt(e.seq),
    occurredAt: timestampFromDate(e.occurredAt),
    recordedAt: timestampFromDate(e.recordedAt),
    source: e.source,
    action: e.action,
    outcome: e.outcome,
    actorUserId: e.actorUserId,
    actorApiKeyId: e.actorApiKeyId,
    actorEmail: e.actorEmail,
    clientIp: e.clientIp,
    userAgent: e.userAgent,
    targetTable: e.targetTable,
    targetId: e.targetId,
    teamId: e.teamId,
    organizationId: e.organizationId,
    requestId: e.requestId,
    details: e.details,
    prevHash: e.prevHash,
    hash: e.hash,
  });
}
