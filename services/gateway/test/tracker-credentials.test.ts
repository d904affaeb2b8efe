// An organization's ticket-tracker logins end to end: a real identity and admin behind a real gateway (real
// PostgreSQL, Redis, Kafka). super_admin only; the api_token is write-only (never answered, stored sealed); a PUT
// for a host replaces its login; every change reaches the audit log without the token.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { randomUUID } from "node:crypto";
import { eventually } from "@sca/testkit";
import { startAuditStack, type AuditStack } from "./audit-stack.ts";

let stack: AuditStack;

beforeAll(async () => {
  stack = await startAuditStack();
}, 90_000);

afterAll(async () => {
  await stack?.close();
});

describe("tracker credentials", () => {
  it("are created and replaced per host, listed without their token, stored sealed, removed, and audited", async () => {
    const admin = await stack.superAdmin();
    const organizationId = randomUUID();
    const path = `/v1/admin/organizations/${organizationId}/tracker-credentials`;
    const firstToken = `first-token-${randomUUID()}`;
    const secondToken = `second-token-${randomUUID()}`;

    const created = await stack.request("PUT", path, {
      bearer: admin.token,
      body: {
        host: "https://Tracker.Example.com:8443/browse/ABC-1",
        api_token: firstToken,
        username: "sca-bot",
      },
    });
    expect(created.status).toBe(201);
    expect(created.json).toEqual({
      id: expect.any(String),
      organization_id: organizationId,
      host: "tracker.example.com",
      auth_scheme: "tracker_basic",
      username: "sca-bot",
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const id = created.json.id as string;

    // The same host, typed bare: the login is replaced (same id), not doubled.
    const replaced = await stack.request("PUT", path, {
      bearer: admin.token,
      body: {
        host: "tracker.example.com",
        api_token: secondToken,
        auth_scheme: "tracker_basic",
        username: "sca-bot-2",
      },
    });
    expect(replaced.status).toBe(200);
    expect(replaced.json).toMatchObject({ id, host: "tracker.example.com", username: "sca-bot-2" });

    const listed = await stack.request("GET", path, { bearer: admin.token });
    expect(listed.status).toBe(200);
    expect(listed.json).toMatchObject({ total: 1, items: [{ id, username: "sca-bot-2" }] });
    for (const text of [created.text, replaced.text, listed.text]) {
      expect(text).not.toContain(firstToken);
      expect(text).not.toContain(secondToken);
      expect(text).not.toMatch(/api_token/);
    }

    // At rest: sealed (admin's secret box), not in the clear.
    const [row] = await stack.admin.orm.em
      .fork()
      .getConnection()
      .execute<{ api_token_sealed: string }[]>("select api_token_sealed from tracker_credentials where id = ?", [id]);
    expect(row!.api_token_sealed).not.toContain(secondToken);
    expect(row!.api_token_sealed).not.toContain(Buffer.from(secondToken).toString("base64").slice(0, 16));
    expect(row!.api_token_sealed.length).toBeGreaterThan(secondToken.length);

    // Another organization's list is its own.
    const elsewhere = await stack.request("GET", `/v1/admin/organizations/${randomUUID()}/tracker-credentials`, {
      bearer: admin.token,
    });
    expect(elsewhere.json).toEqual({ items: [], total: 0 });

    // Removed once; then 404.
    expect((await stack.request("DELETE", `${path}/${id}`, { bearer: admin.token })).status).toBe(204);
    expect((await stack.request("DELETE", `${path}/${id}`, { bearer: admin.token })).status).toBe(404);
    expect((await stack.request("GET", path, { bearer: admin.token })).json).toEqual({ items: [], total: 0 });

    // Every change is in the audit log, by the admin service, without the token.
    const audited = await eventually(
      () => stack.request("GET", `/v1/admin/audit?target_table=tracker_credentials&q=${id}`, { bearer: admin.token }),
      (r) => (r.json.items as unknown[] | undefined)?.length === 3,
    );
    expect((audited.json.items as { action: string; source: string }[]).map((e) => [e.source, e.action])).toEqual([
      ["admin", "tracker_credential.deleted"],
      ["admin", "tracker_credential.replaced"],
      ["admin", "tracker_credential.created"],
    ]);
    expect(audited.text).not.toContain(firstToken);
    expect(audited.text).not.toContain(secondToken);
  });

  it("refuse anyone but a super_admin (404) and malformed bodies (422)", async () => {
    const admin = await stack.superAdmin();
    const t = await stack.team();
    const lead = await stack.person([[t.id, "team_admin"]]);
    const path = `/v1/admin/organizations/${randomUUID()}/tracker-credentials`;
    const good = { host: "jira.example.com", api_token: "t0ken", username: "bot" };
    expect((await stack.request("GET", path, { bearer: lead.token })).status).toBe(404);
    expect((await stack.request("PUT", path, { bearer: lead.token, body: good })).status).toBe(404);
    expect((await stack.request("DELETE", `${path}/${randomUUID()}`, { bearer: lead.token })).status).toBe(404);
    for (const bad of [
      { ...good, username: undefined },
      { ...good, api_token: undefined },
      { ...good, api_token: "" },
      { ...good, auth_scheme: "oauth" },
      { ...good, host: "not a host!" },
      { ...good, host: "" },
    ]) {
      const reply = await stack.request("PUT", path, { bearer: admin.token, body: bad });
      expect([reply.status, bad]).toEqual([422, bad]);
      expect(reply.contentType).toMatch(/application\/problem\+json/);
      expect(reply.text).not.toContain("t0ken");
    }
    expect((await stack.request("GET", path, { bearer: admin.token })).json).toEqual({ items: [], total: 0 });
  });
});
