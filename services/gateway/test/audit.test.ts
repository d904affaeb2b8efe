// The audit routes through a real gateway, identity and admin: an audited action of identity reaching the log through
// Kafka with its request id and client; GET /v1/admin/audit for super_admins only (404 to others) with its filters,
// bounds and has_more; the team-scoped search; the CSV's shape.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { fixturesOf } from "@sca/testkit";
import { startAuditStack, type AuditStack } from "./audit-stack.ts";

let s: AuditStack;
let root: { id: string; token: string };
let team: { id: string };
let teamAdmin: { id: string; token: string };
let developer: { id: string; token: string };
const tag = `tag-${randomUUID().slice(0, 8)}`;

beforeAll(async () => {
  s = await startAuditStack();
  root = await s.superAdmin();
  team = await s.team();
  teamAdmin = await s.person([[team.id, "team_admin"]]);
  developer = await s.person([[team.id, "developer"]]);
  const admin = await fixturesOf("admin");
  await admin.auditEntries(s.admin.orm, 30, (i) => ({
    action: i % 2 ? "fixture.odd" : "fixture.even",
    teamId: i < 10 ? team.id : randomUUID(),
    targetId: `${tag}-${i}`,
    occurredAt: new Date(Date.UTC(2026, 5, 1, 0, i)),
  }));
}, 90_000);

afterAll(async () => {
  await s?.close();
});

async function until<T>(read: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await read();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe("GET /v1/admin/audit", () => {
  it("shows an audited action of identity with its actor, target, request id and client", async () => {
    const target = await s.person([]);
    const requestId = `audit-${randomUUID()}`;
    const r = await s.request("POST", `/v1/admin/users/${target.id}/unlock-sign-in`, {
      bearer: root.token,
      headers: { "x-request-id": requestId, "user-agent": "audit-test/1" },
    });
    expect(r.status).toBe(204);
    const entry = await until(async () => {
      const page = await s.request("GET", `/v1/admin/audit?actor_user_id=${root.id}&target_table=users`, {
        bearer: root.token,
      });
      return (page.json.items as Record<string, unknown>[]).find((e) => e.request_id === requestId);
    });
    expect(entry).toMatchObject({
      source: "identity",
      actor_user_id: root.id,
      target_table: "users",
      target_id: target.id,
      request_id: requestId,
      user_agent: "audit-test/1",
      outcome: "success",
    });
    expect(entry.client_ip).toEqual(expect.any(String));
    expect(entry.hash).toMatch(/^[0-9a-f]{64}$/);
  }, 40_000);

  it("pages newest first with has_more, page, page_size and total", async () => {
    const r = await s.request("GET", `/v1/admin/audit?q=${tag}&page_size=20`, { bearer: root.token });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ total: 30, page: 1, page_size: 20, has_more: true });
    const items = r.json.items as Record<string, unknown>[];
    expect(items[0]!.target_id).toBe(`${tag}-29`);
    const last = await s.request("GET", `/v1/admin/audit?q=${tag}&page_size=20&page=2`, { bearer: root.token });
    expect(last.json).toMatchObject({ total: 30, page: 2, has_more: false });
    expect(last.json.items).toHaveLength(10);
    const byDefault = await s.request("GET", `/v1/admin/audit?q=${tag}`, { bearer: root.token });
    expect(byDefault.json.page_size).toBe(50);
  });

  it("filters by action and time", async () => {
    const odd = await s.request("GET", `/v1/admin/audit?q=${tag}&action=fixture.odd`, { bearer: root.token });
    expect(odd.json.total).toBe(15);
    const prefix = await s.request("GET", `/v1/admin/audit?q=${tag}&action=fixture.*`, { bearer: root.token });
    expect(prefix.json.total).toBe(30);
    const window = await s.request(
      "GET",
      `/v1/admin/audit?q=${tag}&from=2026-06-01T00:05:00Z&to=2026-06-01T02:10:00%2B02:00`,
      { bearer: root.token },
    );
    expect(window.json.total).toBe(5);
  });

  it("refuses out-of-bounds pages and malformed filters with 422, never clamping", async () => {
    for (const q of ["page_size=201", "page_size=0", "page=0", "actor_user_id=nobody", "from=yesterday"]) {
      const r = await s.request("GET", `/v1/admin/audit?${q}`, { bearer: root.token });
      expect(r.status).toBe(422);
      expect(r.contentType).toMatch(/^application\/problem\+json/);
    }
    const inverted = await s.request("GET", "/v1/admin/audit?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z", {
      bearer: root.token,
    });
    expect(inverted.status).toBe(422);
    expect(JSON.stringify(inverted.json)).toContain("query.from");
  });

  it("answers 404 to anyone but a super_admin, 401 to nobody", async () => {
    for (const path of ["/v1/admin/audit", "/v1/admin/audit/export.csv"]) {
      const r = await s.request("GET", path, { bearer: teamAdmin.token });
      expect(r.status).toBe(404);
      expect(r.contentType).toMatch(/^application\/problem\+json/);
      expect((await s.request("GET", path)).status).toBe(401);
    }
  });
});

describe("GET /v1/teams/{team_id}/audit", () => {
  it("answers a team_admin the team's entries only, in the same shape", async () => {
    const r = await s.request("GET", `/v1/teams/${team.id}/audit?q=${tag}`, { bearer: teamAdmin.token });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ total: 10, page: 1, page_size: 50, has_more: false });
    expect((r.json.items as Record<string, unknown>[]).every((e) => e.team_id === team.id)).toBe(true);
    const filtered = await s.request("GET", `/v1/teams/${team.id}/audit?q=${tag}&action=fixture.even`, {
      bearer: teamAdmin.token,
    });
    expect(filtered.json.total).toBe(5);
  });

  it("answers 404 to a developer of the team and to a team_admin of another team", async () => {
    expect((await s.request("GET", `/v1/teams/${team.id}/audit`, { bearer: developer.token })).status).toBe(404);
    const elsewhere = await s.request("GET", `/v1/teams/${randomUUID()}/audit`, { bearer: teamAdmin.token });
    expect(elsewhere.status).toBe(404);
  });
});

describe("GET /v1/admin/audit/export.csv", () => {
  it("streams the filtered entries as CSV, newest first, header included", async () => {
    const r = await s.request("GET", `/v1/admin/audit/export.csv?q=${tag}&action=fixture.odd`, { bearer: root.token });
    expect(r.status).toBe(200);
    expect(r.contentType).toMatch(/^text\/csv/);
    const lines = r.text.trimEnd().split("\r\n");
    expect(lines[0]).toBe(
      "id,seq,occurred_at,recorded_at,source,action,outcome,actor_user_id,actor_api_key_id,actor_email,client_ip,user_agent,target_table,target_id,team_id,organization_id,request_id,details,prev_hash,hash",
    );
    expect(lines).toHaveLength(16);
    expect(lines[1]).toContain(`${tag}-29`);
    const empty = await s.request("GET", "/v1/admin/audit/export.csv?action=nothing.matches", { bearer: root.token });
    expect(empty.text.trimEnd().split("\r\n")).toHaveLength(1);
  });
});
