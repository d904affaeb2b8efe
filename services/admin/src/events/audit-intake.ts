// The admin service's consumer of sca.audit.events: every service's AuditEvent becomes one entry of the log, applied
// once per event id (the idempotent consumer, and the log's unique event id behind it).
import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { EntityManager } from "@mikro-orm/postgresql";
import { auditEventsTopic, type EventMeta } from "@sca/kafka";
import type { AuditEvent } from "@sca/proto/sca/events/v1/audit_pb.ts";
import { entryOfEvent } from "../domain/audit-entry.ts";
import { appendEntry } from "../store/audit-log.ts";

export const AUDIT_LOG_GROUP = "admin.audit-log";

export const auditEvents = auditEventsTopic;

export async function recordAuditEvent(em: EntityManager, event: AuditEvent, meta: EventMeta): Promise<void> {
  const fields = entryOfEvent(
    { ...event, occurredAt: event.occurredAt ? timestampDate(event.occurredAt) : undefined },
    meta.eventId,
    meta.timestamp,
  );
  await appendEntry(em, fields);
}
