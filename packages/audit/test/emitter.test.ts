// The audit emitter against a real database: the event lands in the outbox of the change's transaction (or not at
// all), names the emitting service, and carries the actor, the target and the request id.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { fromBinary } from "@bufbuild/protobuf";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { MikroORM } from "@mikro-orm/postgresql";
import { migrateToHead, openDatabase } from "@sca/db";
import { CreateOutboxTable, OutboxMessage, TOPICS } from "@sca/kafka";
import { createLogger, withRequestId } from "@sca/log";
import { AuditEventSchema } from "@sca/proto/sca/events/v1/audit_pb.ts";
import { ANONYMOUS, type Caller } from "@sca/rpc";
import { testServers, uniqueName } from "@sca/testkit";
import { auditEmitter, callerActor, clientActor } from "../src/index.ts";

const caller: Caller = {
  ...ANONYMOUS,
  kind: "api_key",
  user_id: "0190f0e0-0000-7000-8000-000000000001",
  email: "dev@example.com",
  api_key_id: "0190f0e0-0000-7000-8000-00000000000a",
  ip: "203.0.113.7",
  user_agent: "curl/8",
};

describe("actors", () => {
  it("records a caller with the key it used and the address the edge saw", () => {
    expect(callerActor(caller)).toEqual({
      userId: caller.user_id,
      apiKeyId: caller.api_key_id,
      email: "dev@example.com",
      ip: "203.0.113.7",
      userAgent: "curl/8",
    });
    expect(callerActor(ANONYMOUS)).toEqual({ userId: "", apiKeyId: "", email: "", ip: "", userAgent: "" });
  });

  it("records an anonymous client by its address and the account it claimed", () => {
    expect(clientActor({ ip: "198.51.100.2", userAgent: "ua" }, { email: "who@example.com" })).toEqual({
      userId: "",
      email: "who@example.com",
      ip: "198.51.100.2",
      userAgent: "ua",
    });
    expect(clientActor(undefined)).toEqual({ userId: "", email: "", ip: "", userAgent: "" });
  });

  it("refuses an emitter that names no service", () => {
    expect(() => auditEmitter({ source: "" })).toThrow(RangeError);
  });
});

describe("the audit emitter", () => {
  const schema = uniqueName("audit_test");
  let orm: MikroORM;
  beforeAll(async () => {
    orm = await openDatabase({
      url: testServers().databaseUrl,
      schema,
      entities: [OutboxMessage],
      migrations: [CreateOutboxTable],
      logger: createLogger("audit-test", "ERROR"),
    });
    await migrateToHead(orm);
  });
  afterAll(async () => {
    await orm.em.getConnection().execute(`drop schema "${schema}" cascade`);
    await orm.close();
  });

  const decoded = async (eventId: string) => {
    const row = await orm.em.fork().findOneOrFail(OutboxMessage, eventId);
    return { row, event: fromBinary(AuditEventSchema, row.payload) };
  };

  it("writes the event, naming its source, in the transaction of the change", async () => {
    const emit = auditEmitter({ source: "projects", defaultTargetTable: "projects" });
    const at = new Date("2026-01-02T03:04:05.000Z");
    const eventId = await withRequestId("req-audit-1", () =>
      orm.em.fork().transactional((em) =>
        Promise.resolve(
          emit(em, {
            action: "project.created",
            actor: callerActor(caller),
            targetId: "p-1",
            teamId: "t-1",
            outcome: "success",
            details: { name: "web" },
            at,
          }),
        ),
      ),
    );

    const { row, event } = await decoded(eventId);
    expect(row).toMatchObject({ topic: TOPICS.auditEvents, key: caller.user_id, type: "sca.events.v1.AuditEvent" });
    expect(row.headers).toMatchObject({ "event-id": eventId, "request-id": "req-audit-1" });
    expect(event).toMatchObject({
      eventId,
      source: "projects",
      action: "project.created",
      targetTable: "projects",
      targetId: "p-1",
      teamId: "t-1",
      organizationId: "",
      requestId: "req-audit-1",
      outcome: "success",
      details: { name: "web" },
      actor: {
        userId: caller.user_id,
        apiKeyId: caller.api_key_id,
        email: "dev@example.com",
        ip: "203.0.113.7",
        userAgent: "curl/8",
      },
    });
    expect(timestampDate(event.occurredAt!)).toEqual(at);
  });

  it("takes the record's own table over the default, and keys an anonymous event by what is known", async () => {
    const emit = auditEmitter({ source: "identity", defaultTargetTable: "users" });
    const em = orm.em.fork();
    const byTarget = emit(em, {
      action: "auth.login.failed",
      actor: clientActor(undefined),
      targetTable: "sessions",
      targetId: "s-1",
      outcome: "failure",
      at: new Date(),
    });
    const byEmail = emit(em, {
      action: "auth.login.failed",
      actor: clientActor(undefined, { email: "x@example.com" }),
      targetId: "",
      outcome: "failure",
      at: new Date(),
    });
    const nobody = emit(em, {
      action: "auth.login.failed",
      actor: clientActor(undefined),
      targetId: "",
      outcome: "failure",
      at: new Date(),
    });
    const defaulted = emit(em, {
      action: "user.activated",
      actor: callerActor(caller),
      targetId: "u-2",
      outcome: "success",
      at: new Date(),
    });
    await em.flush();

    expect((await decoded(byTarget)).event).toMatchObject({
      source: "identity",
      targetTable: "sessions",
      requestId: "",
    });
    expect((await decoded(byTarget)).row.key).toBe("s-1");
    expect((await decoded(byEmail)).row.key).toBe("x@example.com");
    expect((await decoded(nobody)).row.key).toBe("anonymous");
    expect((await decoded(defaulted)).event.targetTable).toBe("users");
  });

  it("writes nothing when the change rolls back", async () => {
    const emit = auditEmitter({ source: "identity" });
    let eventId = "";
    await expect(
      orm.em.fork().transactional((em) => {
        eventId = emit(em, {
          action: "user.deactivated",
          actor: callerActor(caller),
          targetId: "u-3",
          outcome: "success",
          at: new Date(),
        });
        throw new Error("the change was refused");
      }),
    ).rejects.toThrow("the change was refused");
    expect(eventId).not.toBe("");
    expect(await orm.em.fork().findOne(OutboxMessage, eventId)).toBeNull();
  });
});
