// The audit log through the real servers: events from Kafka into the hash-chained table, once each; PostgreSQL
// refusing UPDATE, DELETE and TRUNCATE; concurrent appends forming one chain; the searches and the export, and who
// may use them.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { Code, ConnectError } from "@connectrpc/connect";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { create } from "@bufbuild/protobuf";
import { AuditService, type AuditEntry as AuditEntryMessage } from "@sca/proto/sca/admin/v1/audit_pb.ts";
import { AuditActorSchema } from "@sca/proto/sca/events/v1/audit_pb.ts";
import { callAs } from "@sca/testkit";
import { verifyChain } from "../src/domain/audit-chain.ts";
import { appendEntry } from "../src/store/audit-log.ts";
import { fixtures } from "./fixtures.ts";
import { auditEvent, startAdmin, waitForEntries, type AdminHarness } from "./support/admin-harness.ts";

let h: AdminHarness;

beforeAll(async () => {
  h = await startAdmin();
}, 60_000);

afterAll(async () => {
  await h?.close();
});

const sql = (query: string) => h.admin.orm.em.fork().getConnection().execute(query);

describe("the consumer", () => {
  it("records every field of each event once, however often it is delivered, as one chain", async () => {
    const teamId = randomUUID();
    const organizationId = randomUUID();
    const apiKeyId = randomUUID();
    const first = auditEvent({
      action: "api_key.created",
      targetTable: "api_keys",
      targetId: apiKeyId,
      teamId,
      organizationId,
      outcome: "success",
      details: { scope: "team", permission_breadth: "read_only" },
      actor: create(AuditActorSchema, {
        userId: randomUUID(),
        apiKeyId,
        email: "ana@example.com",
        ip: "198.51.100.4",
        userAgent: "ci/1.0",
      }),
      occurredAt: timestampFromDate(new Date("2026-11-24T08:00:00.250Z")),
    });
    const second = auditEvent();
    await h.publish(first);
    await h.publish(first, second, first);
    const rows = await h.waitForEntries(2);
    // Time for a third row, were the redelivery applied.
    await new Promise((r) => setTimeout(r, 1500));
    const all = await waitForEntries(h.admin.orm, 2);
    expect(all.filter((r) => r.id === first.eventId)).toHaveLength(1);
    expect(all.filter((r) => r.id === second.eventId)).toHaveLength(1);
    const row = rows.find((r) => r.id === first.eventId)!;
    expect(row).toMatchObject({
      occurredAt: new Date("2026-11-24T08:00:00.250Z"),
      source: "identity",
      action: "api_key.created",
      outcome: "success",
      actorUserId: first.actor!.userId,
      actorApiKeyId: apiKeyId,
      actorEmail: "ana@example.com",
      clientIp: "198.51.100.4",
      userAgent: "ci/1.0",
      targetTable: "api_keys",
      targetId: apiKeyId,
      teamId,
      organizationId,
      requestId: first.requestId,
      details: { scope: "team", permission_breadth: "read_only" },
    });
    expect(row.recordedAt).toBeInstanceOf(Date);
    expect(verifyChain(all)).toMatchObject({ ok: true, count: all.length });
  }, 40_000);

  it("extends one chain when many transactions append at once", async () => {
    const before = (await waitForEntries(h.admin.orm, 0)).length;
    await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        h.admin.orm.em.fork().transactional((em) =>
          appendEntry(em, {
            id: randomUUID(),
            occurredAt: new Date(),
            source: "test",
            action: "concurrent.append",
            outcome: "success",
            actorUserId: "",
            actorApiKeyId: "",
            actorEmail: "",
            clientIp: "",
            userAgent: "",
            targetTable: "t",
            targetId: String(i),
            teamId: "",
            organizationId: "",
            requestId: "",
            details: {},
          }),
        ),
      ),
    );
    const rows = await waitForEntries(h.admin.orm, before + 24);
    expect(rows.map((r) => r.seq)).toEqual(rows.map((_, i) => i + 1));
    expect(verifyChain(rows)).toMatchObject({ ok: true, count: rows.length });
  });
});

describe("append-only, in the database", () => {
  it("PostgreSQL refuses UPDATE, DELETE and TRUNCATE of the log", async () => {
    await waitForEntries(h.admin.orm, 1);
    await expect(sql("update audit_entries set actor_email = 'mallory@example.com'")).rejects.toThrow(
      /audit_entries is append-only: UPDATE refused/,
    );
    await expect(sql("delete from audit_entries where seq = 1")).rejects.toThrow(
      /audit_entries is append-only: DELETE refused/,
    );
    await expect(sql("truncate audit_entries")).rejects.toThrow(/audit_entries is append-only: TRUNCATE refused/);
    const rows = await waitForEntries(h.admin.orm, 1);
    expect(rows.some((r) => r.actorEmail === "mallory@example.com")).toBe(false);
    expect(rows[0]!.seq).toBe(1);
  });
});

describe("AuditService", () => {
  const audit = () => h.admin.client(AuditService);
  const alice = randomUUID();
  const team = randomUUID();
  const otherTeam = randomUUID();
  let tagged: string;

  beforeAll(async () => {
    tagged = `tag-${randomUUID().slice(0, 8)}`;
    await fixtures.auditEntries(h.admin.orm, 120, (i) => ({
      action: i % 2 ? "api_key.revoked" : "api_key.created",
      actorUserId: i < 30 ? alice : "",
      teamId: i < 60 ? team : otherTeam,
      targetTable: i % 3 ? "api_keys" : "projects",
      targetId: `${tagged}-${i}`,
      occurredAt: new Date(Date.UTC(2026, 0, 1) + i * 60_000),
    }));
  });

  const ids = (items: AuditEntryMessage[]) => items.map((e) => e.targetId);

  it("answers a super_admin the log newest first, with has_more and total", async () => {
    const admin = await callAs.superAdmin(randomUUID());
    const page = await audit().listAuditEntries({ filter: { q: tagged }, page: { page: 1, pageSize: 50 } }, admin);
    expect(page.page).toMatchObject({ total: 120, page: 1, pageSize: 50 });
    expect(page.hasMore).toBe(true);
    expect(page.items[0]!.targetId).toBe(`${tagged}-119`);
    expect(page.items.map((e) => Number(e.seq))).toEqual(
      [...page.items.map((e) => Number(e.seq))].sort((a, b) => b - a),
    );
    const last = await audit().listAuditEntries({ filter: { q: tagged }, page: { page: 3, pageSize: 50 } }, admin);
    expect(last.items).toHaveLength(20);
    expect(last.hasMore).toBe(false);
  });

  it("filters by actor, table, action (exact or prefix) and time", async () => {
    const admin = await callAs.superAdmin(randomUUID());
    const list = async (filter: Record<string, unknown>) =>
      (await audit().listAuditEntries({ filter: { q: tagged, ...filter }, page: { pageSize: 200 } }, admin)).items;
    expect(await list({ actorUserId: alice.toUpperCase() })).toHaveLength(30);
    expect((await list({ targetTable: "projects" })).length).toBe(40);
    expect((await list({ action: "api_key.revoked" })).length).toBe(60);
    expect((await list({ action: "api_key.*" })).length).toBe(120);
    expect((await list({ action: "api_key" })).length).toBe(0);
    const window = await list({
      from: timestampFromDate(new Date(Date.UTC(2026, 0, 1) + 10 * 60_000)),
      to: timestampFromDate(new Date(Date.UTC(2026, 0, 1) + 20 * 60_000)),
    });
    expect(ids(window).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `${tagged}-${i + 10}`).sort());
  });

  it("refuses a page size past 200 and a malformed filter with InvalidArgument", async () => {
    const admin = await callAs.superAdmin(randomUUID());
    await expect(audit().listAuditEntries({ page: { pageSize: 201 } }, admin)).rejects.toMatchObject({
      code: Code.InvalidArgument,
    });
    await expect(audit().listAuditEntries({ filter: { actorUserId: "nobody" } }, admin)).rejects.toMatchObject({
      code: Code.InvalidArgument,
    });
  });

  it("tells anyone but a super_admin that the log does not exist", async () => {
    const member = await callAs.user(randomUUID(), {
      memberships: [{ team_id: team, organization_id: null, role: "team_admin" }],
    });
    for (const call of [
      () => audit().listAuditEntries({}, member),
      async () => {
        for await (const chunk of audit().exportAuditEntries({}, member)) void chunk;
      },
    ])
      await expect(call()).rejects.toMatchObject({ code: Code.NotFound });
    await expect(audit().listAuditEntries({})).rejects.toBeInstanceOf(ConnectError);
  });

  it("answers a team_admin the entries of their team only, with the same filters", async () => {
    const teamAdmin = await callAs.user(randomUUID(), {
      memberships: [{ team_id: team, organization_id: null, role: "team_admin" }],
    });
    const page = await audit().listTeamAuditEntries(
      { teamId: team, filter: { q: tagged }, page: { pageSize: 200 } },
      teamAdmin,
    );
    expect(page.page?.total).toBe(60);
    expect(page.items.every((e) => e.teamId === team)).toBe(true);
    const filtered = await audit().listTeamAuditEntries(
      { teamId: team, filter: { q: tagged, actorUserId: alice } },
      teamAdmin,
    );
    expect(filtered.page?.total).toBe(30);
    await expect(audit().listTeamAuditEntries({ teamId: otherTeam }, teamAdmin)).rejects.toMatchObject({
      code: Code.NotFound,
    });
    const developer = await callAs.user(randomUUID(), {
      memberships: [{ team_id: team, organization_id: null, role: "developer" }],
    });
    await expect(audit().listTeamAuditEntries({ teamId: team }, developer)).rejects.toMatchObject({
      code: Code.NotFound,
    });
  });

  it("exports the list's rows in chunks of at most 1000", async () => {
    const admin = await callAs.superAdmin(randomUUID());
    const chunks: number[] = [];
    const exported: string[] = [];
    for await (const chunk of audit().exportAuditEntries({ filter: { q: tagged, action: "api_key.created" } }, admin)) {
      chunks.push(chunk.items.length);
      exported.push(...ids(chunk.items));
    }
    const listed = await audit().listAuditEntries(
      { filter: { q: tagged, action: "api_key.created" }, page: { pageSize: 200 } },
      admin,
    );
    expect(exported).toEqual(ids(listed.items));
    expect(Math.max(...chunks)).toBeLessThanOrEqual(1000);
  });
});
