// The routing-rule routes end to end: a real identity and notifier behind a real gateway (real PostgreSQL, Redis,
// Kafka): who may list, add and remove an organization's and a team's rules, the rule's fields, and the bounds.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { randomUUID } from "node:crypto";
import { startNotifierStack, type NotifierStack } from "./notifier-stack.ts";

let stack: NotifierStack;

beforeAll(async () => {
  stack = await startNotifierStack();
}, 90_000);

afterAll(async () => {
  await stack?.close();
}, 120_000);

describe("a team's rules", () => {
  it("team_admin adds them (201, the spec's fields), members list them with the organization's, others get 404", async () => {
    const t = await stack.team();
    const lead = await stack.person(t.id, "team_admin");
    const dev = await stack.person(t.id, "developer");
    const outsider = await stack.person((await stack.team()).id, "team_admin");
    const path = `/v1/notification-rules/teams/${t.id}`;
    const body = {
      name: "Security on call",
      kinds: ["scan.failed"],
      min_severity: "medium",
      channels: ["email", "slack"],
      email_recipients: ["OnCall@Example.com"],
    };

    const created = await stack.request("POST", path, { bearer: lead, body });
    expect(created.status).toBe(201);
    expect(created.json).toEqual({
      id: expect.any(String),
      organization_id: t.organizationId,
      team_id: t.id,
      project_id: null,
      name: "Security on call",
      kinds: ["scan.failed"],
      min_severity: "medium",
      channels: ["email", "slack"],
      email_recipients: ["oncall@example.com"],
      is_active: true,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });

    const forbidden = await stack.request("POST", path, { bearer: dev, body });
    expect(forbidden.status).toBe(403);
    expect(forbidden.contentType).toMatch(/application\/problem\+json/);
    expect((await stack.request("POST", path, { bearer: outsider, body })).status).toBe(404);
    expect((await stack.request("GET", path, { bearer: outsider })).status).toBe(404);
    expect((await stack.request("GET", `/v1/notification-rules/teams/${randomUUID()}`, { bearer: lead })).status).toBe(
      404,
    );
    expect((await stack.request("GET", path)).status).toBe(401);

    const listed = await stack.request("GET", path, { bearer: dev });
    expect(listed.status).toBe(200);
    const items = listed.json.items as Record<string, unknown>[];
    expect(listed.json.total).toBe(items.length);
    expect(items.at(-1)).toEqual(created.json);
    // The organization's own rules come first, each without a team.
    expect(items.slice(0, -1).every((r) => r.team_id === null && r.organization_id === t.organizationId)).toBe(true);

    const id = created.json.id as string;
    expect((await stack.request("DELETE", `/v1/notification-rules/${id}`, { bearer: dev })).status).toBe(403);
    expect((await stack.request("DELETE", `/v1/notification-rules/${id}`, { bearer: outsider })).status).toBe(404);
    expect((await stack.request("DELETE", `/v1/notification-rules/${id}`, { bearer: lead })).status).toBe(204);
    expect((await stack.request("DELETE", `/v1/notification-rules/${id}`, { bearer: lead })).status).toBe(404);
    expect(((await stack.request("GET", path, { bearer: dev })).json.items as unknown[]).length).toBe(items.length - 1);
  });

  it("refuses more than 50 recipients, unknown kinds, severities and channels, and a missing name (422)", async () => {
    const t = await stack.team();
    const lead = await stack.person(t.id, "team_admin");
    const path = `/v1/notification-rules/teams/${t.id}`;
    const post = (body: unknown) => stack.request("POST", path, { bearer: lead, body });
    const fifty = Array.from({ length: 50 }, (_, i) => `p${i}@example.com`);
    for (const bad of [
      { name: "x", email_recipients: [...fifty, "one-more@example.com"] },
      { name: "x", email_recipients: ["not-an-address"] },
      { name: "x", kinds: ["no.such.kind"] },
      { name: "x", kinds: ["account.password_reset"] },
      { name: "x", min_severity: "severe" },
      { name: "x", channels: ["pager"] },
      { name: "" },
      { name: "x".repeat(201) },
      { kinds: [] },
    ]) {
      const reply = await post(bad);
      expect([reply.status, bad]).toEqual([422, bad]);
      expect(reply.contentType).toMatch(/application\/problem\+json/);
    }
    const most = await post({ name: "fifty", email_recipients: fifty });
    expect(most.status).toBe(201);
    expect(most.json).toMatchObject({ kinds: [], min_severity: null, channels: [], is_active: true });
    await stack.request("DELETE", `/v1/notification-rules/${most.json.id as string}`, { bearer: lead });
  });
});

describe("an organization's rules", () => {
  it("super_admin adds and removes them; a member reads them but may not add (403); an outsider gets 404", async () => {
    const t = await stack.team();
    const admin = await stack.person(null, "", true);
    const member = await stack.person(t.id, "team_admin");
    const path = `/v1/notification-rules/org/${t.organizationId}`;
    const body = {
      name: "Everything critical",
      min_severity: "critical",
      channels: ["teams"],
      project_id: randomUUID(),
    };

    const created = await stack.request("POST", path, { bearer: admin, body });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      organization_id: t.organizationId,
      team_id: null,
      project_id: body.project_id,
      min_severity: "critical",
      channels: ["teams"],
    });
    expect((await stack.request("POST", path, { bearer: member, body })).status).toBe(403);
    const listed = await stack.request("GET", path, { bearer: member });
    expect(listed.status).toBe(200);
    expect((listed.json.items as { id: string }[]).map((r) => r.id)).toContain(created.json.id);
    expect(
      (
        (await stack.request("GET", `/v1/notification-rules/teams/${t.id}`, { bearer: member })).json.items as {
          id: string;
        }[]
      ).map((r) => r.id),
    ).toContain(created.json.id);
    const stranger = await stack.person(null, "");
    expect((await stack.request("GET", path, { bearer: stranger })).status).toBe(404);
    expect((await stack.request("POST", path, { bearer: stranger, body })).status).toBe(404);

    const id = created.json.id as string;
    expect((await stack.request("DELETE", `/v1/notification-rules/${id}`, { bearer: member })).status).toBe(403);
    expect((await stack.request("DELETE", `/v1/notification-rules/${id}`, { bearer: admin })).status).toBe(204);
    expect((await stack.request("DELETE", `/v1/notification-rules/not-a-uuid`, { bearer: admin })).status).toBe(422);
  });
});
