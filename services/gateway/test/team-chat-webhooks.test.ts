// The team chat-webhook routes end to end: a real identity and notifier behind a real gateway (real PostgreSQL,
// Redis, Kafka): who may read, set and remove a team's own Slack and Teams URLs, that no answer holds a URL, and
// the problem documents for a bad body.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { randomUUID } from "node:crypto";
import { DirectoryService } from "@sca/proto/sca/identity/v1/directory_pb.ts";
import { callAs, fixturesOf, startService, uniqueName, type TestService } from "@sca/testkit";
import { startTestGateway, type TestGateway } from "./harness.ts";

let identity: TestService;
let notifier: TestService;
let gateway: TestGateway;

beforeAll(async () => {
  const answerNamespace = `${uniqueName("identity_answers")}:`;
  const KAFKA_TOPIC_PREFIX = `${uniqueName("chat_hooks_stack")}.`;
  identity = await startService("identity", {
    env: { KAFKA_TOPIC_PREFIX },
    seams: { apiKeyAnswerNamespace: answerNamespace },
  });
  notifier = await startService("notifier", {
    env: {
      IDENTITY_RPC_URL: identity.url!,
      KAFKA_TOPIC_PREFIX,
      TEAM_CHAT_WEBHOOK_ALLOWED_HOSTS: "hooks.slack.example,*.office.example",
    },
  });
  gateway = await startTestGateway({
    identity: { url: identity.url!, answerNamespace },
    services: { notifier: notifier.url! },
  });
}, 90_000);

afterAll(async () => {
  await gateway?.close();
  await notifier?.close();
  await identity?.close();
}, 120_000);

interface Reply {
  status: number;
  contentType: string;
  json: Record<string, unknown>;
}

async function request(method: string, path: string, opts: { bearer?: string; body?: unknown } = {}): Promise<Reply> {
  const headers: Record<string, string> = {};
  if (opts.bearer) headers.authorization = `Bearer ${opts.bearer}`;
  if (opts.body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${gateway.origin}${path}`, {
    method,
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  const text = await res.text();
  const contentType = res.headers.get("content-type") ?? "";
  return {
    status: res.status,
    contentType,
    json: /json/.test(contentType) && text ? (JSON.parse(text) as Record<string, unknown>) : {},
  };
}

async function team(): Promise<{ id: string; organizationId: string }> {
  const { team: t } = await identity
    .client(DirectoryService)
    .createTeam({ name: "Chat", slug: `chat-${randomUUID().slice(0, 8)}` }, await callAs.superAdmin(randomUUID()));
  return { id: t!.id, organizationId: t!.organizationId! };
}

async function person(teamId: string | null, role: string, superAdmin = false): Promise<string> {
  const fixtures = await fixturesOf("identity");
  const id = await fixtures.user(identity.orm, { superAdmin });
  if (teamId)
    await identity
      .client(DirectoryService)
      .addTeamMember({ teamId, userId: id, role }, await callAs.superAdmin(randomUUID()));
  return fixtures.accessToken(id);
}

describe("/v1/teams/{team_id}/chat-webhooks", () => {
  it("team_admin sets them (write-only: reads show the host), members below 403, outsiders 404, bad URLs 422", async () => {
    const t = await team();
    const lead = await person(t.id, "team_admin");
    const dev = await person(t.id, "developer");
    const outsider = await person((await team()).id, "team_admin");
    const path = `/v1/teams/${t.id}/chat-webhooks`;
    const secret = "https://hooks.slack.example/services/T0/B0/very-secret-part";

    expect((await request("GET", path)).status).toBe(401);
    const empty = await request("GET", path, { bearer: lead });
    expect(empty.status).toBe(200);
    expect(empty.json).toEqual({
      team_id: t.id,
      slack: { configured: false, host: null },
      teams: { configured: false, host: null },
      updated_at: null,
    });
    expect((await request("PUT", path, { bearer: dev, body: { slack_url: secret } })).status).toBe(403);
    expect((await request("GET", path, { bearer: dev })).status).toBe(403);
    expect((await request("PUT", path, { bearer: outsider, body: { slack_url: secret } })).status).toBe(404);
    const bad = await request("PUT", path, { bearer: lead, body: { slack_url: "not a url" } });
    expect(bad.status).toBe(422);
    expect(bad.contentType).toMatch(/^application\/problem\+json/);
    expect((await request("PUT", path, { bearer: lead, body: { slack_url: secret, extra: 1 } })).status).toBe(422);
    const elsewhere = await request("PUT", path, { bearer: lead, body: { slack_url: "https://internal.example/x" } });
    expect(elsewhere.status).toBe(422);

    const set = await request("PUT", path, { bearer: lead, body: { slack_url: secret } });
    expect(set.status).toBe(200);
    expect(set.json).toMatchObject({
      slack: { configured: true, host: "hooks.slack.example" },
      teams: { configured: false, host: null },
    });
    expect(typeof set.json.updated_at).toBe("string");
    const read = await request("GET", path, { bearer: lead });
    expect(JSON.stringify(read.json)).not.toContain("very-secret-part");
    // Left out keeps it; null removes it.
    const teams = await request("PUT", path, {
      bearer: lead,
      body: { teams_url: "https://example.webhook.office.example/workflows/x" },
    });
    expect(teams.json).toMatchObject({ slack: { configured: true }, teams: { configured: true } });
    const cleared = await request("PUT", path, { bearer: lead, body: { slack_url: null } });
    expect(cleared.json).toMatchObject({ slack: { configured: false }, teams: { configured: true } });
    expect((await request("DELETE", path, { bearer: lead })).status).toBe(204);
    expect((await request("GET", path, { bearer: lead })).json).toMatchObject({ teams: { configured: false } });
    expect((await request("DELETE", `/v1/teams/${randomUUID()}/chat-webhooks`, { bearer: lead })).status).toBe(404);
  });
});
