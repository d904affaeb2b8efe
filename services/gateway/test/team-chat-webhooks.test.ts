// The team chat-webhook routes end to end: a real identity and notifier behind a real gateway (real PostgreSQL,
// Redis, Kafka): who may read, set and remove a team's own Slack and Teams URLs, that no answer holds a URL, and
// the problem documents for a bad body.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { randomUUID } from "node:crypto";
import { startNotifierStack, type NotifierStack } from "./notifier-stack.ts";

let stack: NotifierStack;

beforeAll(async () => {
  stack = await startNotifierStack({ TEAM_CHAT_WEBHOOK_ALLOWED_HOSTS: "hooks.slack.example,*.office.example" });
}, 90_000);

afterAll(async () => {
  await stack?.close();
}, 120_000);

describe("/v1/teams/{team_id}/chat-webhooks", () => {
  it("team_admin sets them (write-only: reads show the host), members below 403, outsiders 404, bad URLs 422", async () => {
    const t = await stack.team();
    const lead = await stack.person(t.id, "team_admin");
    const dev = await stack.person(t.id, "developer");
    const outsider = await stack.person((await stack.team()).id, "team_admin");
    const path = `/v1/teams/${t.id}/chat-webhooks`;
    const secret = "https://hooks.slack.example/services/T0/B0/very-secret-part";

    expect((await stack.request("GET", path)).status).toBe(401);
    const empty = await stack.request("GET", path, { bearer: lead });
    expect(empty.status).toBe(200);
    expect(empty.json).toEqual({
      team_id: t.id,
      slack: { configured: false, host: null },
      teams: { configured: false, host: null },
      updated_at: null,
    });
    expect((await stack.request("PUT", path, { bearer: dev, body: { slack_url: secret } })).status).toBe(403);
    expect((await stack.request("GET", path, { bearer: dev })).status).toBe(403);
    expect((await stack.request("PUT", path, { bearer: outsider, body: { slack_url: secret } })).status).toBe(404);
    const bad = await stack.request("PUT", path, { bearer: lead, body: { slack_url: "not a url" } });
    expect(bad.status).toBe(422);
    expect(bad.contentType).toMatch(/^application\/problem\+json/);
    expect((await stack.request("PUT", path, { bearer: lead, body: { slack_url: secret, extra: 1 } })).status).toBe(
      422,
    );
    const elsewhere = await stack.request("PUT", path, {
      bearer: lead,
      body: { slack_url: "https://internal.example/x" },
    });
    expect(elsewhere.status).toBe(422);

    const set = await stack.request("PUT", path, { bearer: lead, body: { slack_url: secret } });
    expect(set.status).toBe(200);
    expect(set.json).toMatchObject({
      slack: { configured: true, host: "hooks.slack.example" },
      teams: { configured: false, host: null },
    });
    expect(typeof set.json.updated_at).toBe("string");
    const read = await stack.request("GET", path, { bearer: lead });
    expect(JSON.stringify(read.json)).not.toContain("very-secret-part");
    // Left out keeps it; null removes it.
    const teams = await stack.request("PUT", path, {
      bearer: lead,
      body: { teams_url: "https://example.webhook.office.example/workflows/x" },
    });
    expect(teams.json).toMatchObject({ slack: { configured: true }, teams: { configured: true } });
    const cleared = await stack.request("PUT", path, { bearer: lead, body: { slack_url: null } });
    expect(cleared.json).toMatchObject({ slack: { configured: false }, teams: { configured: true } });
    expect((await stack.request("DELETE", path, { bearer: lead })).status).toBe(204);
    expect((await stack.request("GET", path, { bearer: lead })).json).toMatchObject({ teams: { configured: false } });
    expect((await stack.request("DELETE", `/v1/teams/${randomUUID()}/chat-webhooks`, { bearer: lead })).status).toBe(
      404,
    );
  });
});
