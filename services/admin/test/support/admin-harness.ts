// The admin service started by the test kit (its own schema and topic prefix), with what its tests arrange: audit
// events published to its topic as a service's outbox relay publishes them, waiting for the log to hold them, raw
// SQL against its schema (the append-only refusals are PostgreSQL's own), and bulk entries.
import { randomUUID } from "node:crypto";
import { create, toBinary } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { MikroORM } from "@mikro-orm/postgresql";
import { EVENT_ID, EVENT_TYPE, TOPICS, uuidv7 } from "@sca/kafka";
import { AuditActorSchema, AuditEventSchema, type AuditEvent } from "@sca/proto/sca/events/v1/audit_pb.ts";
import { startService, type TestService, type TestServiceOverrides } from "@sca/testkit";
import { AuditEntry, type AuditEntryRow } from "../../src/store/entities/audit-entry.ts";
import { service, type AdminSeams } from "../../src/service.ts";

export interface AdminHarness {
  admin: TestService;
  /** Publishes events to sca.audit.events (under the service's prefix); answers their event ids. */
  publish(...events: AuditEvent[]): Promise<string[]>;
  /** The log's rows in chain order, once it holds at least `count` of them. */
  waitForEntries(count: number, timeoutMs?: number): Promise<AuditEntryRow[]>;
  close(): Promise<void>;
}

/** An AuditEvent with everything set; `over` replaces fields. */
export function auditEvent(over: Partial<Omit<AuditEvent, "$typeName">> = {}): AuditEvent {
  return create(AuditEventSchema, {
    eventId: uuidv7(),
    occurredAt: timestampFromDate(new Date()),
    source: "identity",
    action: "auth.login.succeeded",
    actor: create(AuditActorSchema, {
      userId: randomUUID(),
      apiKeyId: "",
      email: "ana@example.com",
      ip: "203.0.113.7",
      userAgent: "Mozilla/5.0",
    }),
    targetTable: "users",
    targetId: randomUUID(),
    teamId: "",
    organizationId: "",
    requestId: `req-${randomUUID()}`,
    outcome: "success",
    details: {},
    ...over,
  });
}

export async function startAdmin(overrides: TestServiceOverrides<AdminSeams> = {}): Promise<AdminHarness> {
  const admin = await startService(service, overrides);
  const producer = admin.kafka!.producer();
  await producer.connect();
  return {
    admin,
    async publish(...events) {
      await producer.send({
        topic: admin.kafka!.topicName(TOPICS.auditEvents),
        acks: -1,
        messages: events.map((e) => ({
          key: e.actor?.userId || "anonymous",
          value: Buffer.from(toBinary(AuditEventSchema, e)),
          headers: { [EVENT_ID]: e.eventId, [EVENT_TYPE]: AuditEventSchema.typeName },
        })),
      });
      return events.map((e) => e.eventId);
    },
    waitForEntries: (count, timeoutMs) => waitForEntries(admin.orm, count, timeoutMs),
    async close() {
      await producer.disconnect();
      await admin.close();
    },
  };
}

export async function waitForEntries(orm: MikroORM, count: number, timeoutMs = 20_000): Promise<AuditEntryRow[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const rows = await orm.em.fork().find(AuditEntry, {}, { orderBy: { seq: "asc" }, disableIdentityMap: true });
    if (rows.length >= count) return rows;
    if (Date.now() > deadline) throw new Error(`the log holds ${rows.length} of ${count} entries`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
